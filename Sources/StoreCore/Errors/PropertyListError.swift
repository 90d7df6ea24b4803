/// A binary property list that cannot be read: not a `bplist00` file, a malformed or truncated
/// one, or one that holds something Stowage refuses (sets, integers beyond `Int64`, cycles,
/// nesting or shared-reference expansion beyond the reader's limits).
///
/// For example:
///
/// ```swift
/// catch let error as PropertyListError where error.code == .corrupt { print(error) }
/// // "object reference 9 out of range (7 objects) (at byte 42)"
/// ```
public struct PropertyListError: CodedError, CustomStringConvertible, Sendable {
    /// The kind of a property-list error: an `ErrorCode` whose values (`.corrupt`, `.unsupported`, …)
    /// are its static members below.
    public typealias Code = ErrorCode<PropertyListError>
    /// The kind of problem, for matching: `error.code == .corrupt`.
    public let code: Code
    /// The byte offset in the property list where the problem was found, if it has one place.
    public let offset: Int?
    /// What went wrong, in words.
    public let message: String

    /// Creates a property-list error; `description` appends the byte `offset`, when given, to `message`.
    public init(_ code: Code, offset: Int? = nil, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String {
        offset.map { "\(message) (at byte \($0))" } ?? message
    }
}

extension ErrorCode where Domain == PropertyListError {
    /// The data does not start with `bplist00`.
    public static let notBinaryPropertyList = Self("notBinaryPropertyList")
    /// The structure is malformed: truncated, out-of-range offsets or references, bad markers,
    /// invalid strings, non-string or duplicate dictionary keys.
    public static let corrupt = Self("corrupt")
    /// A well-formed object Stowage does not read: a set, a null or fill marker, or an
    /// integer outside `Int64`.
    public static let unsupported = Self("unsupported")
    /// An object contains itself, directly or through other objects.
    public static let cyclicReference = Self("cyclicReference")
    /// Containers nest deeper than the reader's limit.
    public static let nestingTooDeep = Self("nestingTooDeep")
    /// The value, with shared references expanded, has more nodes than the reader's limit.
    public static let tooManyValues = Self("tooManyValues")
    /// The property list is not an `NSKeyedArchiver` archive (``KeyedArchive``).
    public static let notKeyedArchive = Self("notKeyedArchive")
    /// A keyed archive holds an object of a class outside ``KeyedArchive``'s allow-list, or a
    /// value it cannot write.
    public static let classNotAllowed = Self("classNotAllowed")
}
