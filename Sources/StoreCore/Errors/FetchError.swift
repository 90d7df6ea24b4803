/// A fetch that cannot be run: an unknown key path, an unbound variable, a construct the store
/// cannot evaluate, or a predicate string that does not parse.
///
/// For example:
///
/// ```swift
/// catch let error as FetchError where error.code == .invalidKeyPath { print(error) }
/// ```
public struct FetchError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<FetchError>
    public let code: Code
    /// What went wrong, in words.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension ErrorCode where Domain == FetchError {
    public static let invalidKeyPath = Self("invalidKeyPath")
    public static let unboundVariable = Self("unboundVariable")
    public static let unsupported = Self("unsupported")
    public static let wrongResultType = Self("wrongResultType")
    /// A predicate written as a string literal that does not parse.
    public static let invalidPredicate = Self("invalidPredicate")
    /// A `#Predicate` or `SortDescriptor` with a part no store query can express (a function
    /// call, a key path to a property that is not in the model); the message names the part.
    public static let untranslatablePredicate = Self("untranslatablePredicate")
    /// A MATCHES pattern that is not a valid regular expression.
    public static let invalidRegularExpression = Self("invalidRegularExpression")
    /// A function applied to arguments of the wrong number or kind.
    public static let invalidArgument = Self("invalidArgument")
    /// An asynchronous fetch was cancelled before it finished.
    public static let cancelled = Self("cancelled")
}
