/// A named error code; each error type declares its codes as static members.
///
/// Codes are open-ended structs rather than enum cases so that new codes never break a
/// caller's `switch`; compare them with `==`, or name them as patterns in `catch` (``~=(_:_:)``).
///
/// For example:
///
/// ```swift
/// catch let error as ModelError where error.code == .missingInverse { … }
/// ```
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// The code's name, as written in docs/errors.md (`"readOnly"`).
    public let name: String
    /// A code named `name`; error types declare theirs as static members.
    public init(_ name: String) { self.name = name }
    public var description: String { name }
}

/// An error whose ``code`` is an ``ErrorCode`` of its own type: ``StoreError``,
/// ``ObjectValidationError``, ``FetchError``, ``ModelError``, ``MigrationError``,
/// ``PredicateSyntaxError``, ``PropertyListError`` and the model-file errors.
///
/// Its codes can be named directly in `catch` (as GRDB's `DatabaseError` result codes can):
///
/// ```swift
/// do {
///     try context.save()
/// } catch ObjectValidationError.Code.uniquenessConstraint {
///     // another object already has this value
/// }
/// ```
public protocol CodedError: Error {
    /// What kind of problem this is.
    var code: ErrorCode<Self> { get }
}

extension ErrorCode where Domain: CodedError {
    /// Whether `error` is of this code's error type and carries this code, so a code can be a
    /// `catch` or `case` pattern: `catch StoreError.Code.readOnly { … }`.
    public static func ~= (code: ErrorCode, error: any Error) -> Bool {
        (error as? Domain)?.code == code
    }
}
