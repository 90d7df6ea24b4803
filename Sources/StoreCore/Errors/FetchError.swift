/// A fetch that cannot be run: an unknown key path, an unbound variable, a construct the store
/// cannot evaluate, or a predicate string that does not parse.
///
/// For example:
///
/// ```swift
/// catch let error as FetchError where error.code == .invalidKeyPath { print(error) }
/// ```
public struct FetchError: CodedError, CustomStringConvertible, Sendable {
    /// The kind of a fetch error: an `ErrorCode` whose values (`.invalidKeyPath`, `.unsupported`, …)
    /// are its static members below.
    public typealias Code = ErrorCode<FetchError>
    /// The kind of problem, for matching: `error.code == .invalidKeyPath`.
    public let code: Code
    /// What went wrong, in words.
    public let message: String

    /// Creates a fetch error; `message` is the error's `description`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension ErrorCode where Domain == FetchError {
    /// A key that names nothing: a property the entity does not have (in a predicate, sort,
    /// `propertiesToFetch`, having predicate, prefetch key path or batch update), an unknown collection
    /// operator such as `@median`, or a composite attribute compared or sorted whole.
    public static let invalidKeyPath = Self("invalidKeyPath")
    /// A `$VARIABLE` in the predicate has no value: substitute it (or pass it to
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)`) before fetching.
    public static let unboundVariable = Self("unboundVariable")
    /// A request that is valid but that the store cannot run: a construct that does not compile to
    /// SQL (comparing two to-many collections with `==`), a function Core Data does not support in
    /// fetches, a `FUNCTION` call on an object or collection, or a predicate nested too deep.
    public static let unsupported = Self("unsupported")
    /// The results are not of the requested type: the entity's class is not the request's `Result`,
    /// a `.count` request passed to `fetch` (use `count(for:)`), or a fetched-results controller's
    /// object is not of its `Result` type.
    public static let wrongResultType = Self("wrongResultType")
    /// A predicate written as a string literal that does not parse; the fetch that uses it
    /// throws, on every store, even when there is no object to evaluate it on.
    public static let invalidPredicate = Self("invalidPredicate")
    /// A `#Predicate` or `SortDescriptor` with a part no store query can express (a function
    /// call, a key path to a property that is not in the model, such as a computed property);
    /// the message names the part and where it stands in the predicate.
    public static let untranslatablePredicate = Self("untranslatablePredicate")
    /// A MATCHES pattern that is not a valid regular expression.
    public static let invalidRegularExpression = Self("invalidRegularExpression")
    /// A function applied to arguments of the wrong number or kind.
    public static let invalidArgument = Self("invalidArgument")
    /// An asynchronous fetch was cancelled before it finished.
    public static let cancelled = Self("cancelled")
}
