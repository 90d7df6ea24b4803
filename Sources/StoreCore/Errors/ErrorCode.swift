/// A named error code; each error type declares its codes as static members.
///
/// Codes are open-ended structs rather than enum cases so that new codes never break a
/// caller's `switch`; compare them with `==` or match them with `~=`.
///
/// For example:
///
/// ```swift
/// catch let error as ModelError where error.code == .missingInverse { … }
/// ```
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }
}
