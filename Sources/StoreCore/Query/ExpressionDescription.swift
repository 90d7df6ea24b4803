/// A named expression in a dictionary fetch: the key its value appears under, the expression,
/// and the type of its result — Core Data's `NSExpressionDescription`.
///
/// For example:
///
/// ```swift
/// let average = ExpressionDescription(name: "averageMagnitude",
///                                     expression: .function("average:", [.keyPath("magnitude")]),
///                                     resultType: .double)
/// request.propertiesToFetch = ["place", .expression(average)]
/// request.propertiesToGroupBy = ["place"]
/// ```
public struct ExpressionDescription: Sendable, Hashable {
    /// The key of the value in each result dictionary.
    public var name: String
    /// What to compute.
    public var expression: StoreExpression
    /// The type the result is converted to (`nil`: as computed).
    public var resultType: AttributeType?

    /// Creates a named expression column (Core Data's `NSExpressionDescription`); a `nil`
    /// `resultType` keeps the value as computed.
    public init(name: String, expression: StoreExpression, resultType: AttributeType? = nil) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }
}

/// One column of a dictionary fetch: a property (or key path) of the entity, or a named expression.
///
/// For example:
///
/// ```swift
/// request.propertiesToFetch = ["title", "post.title", .expression(countDescription)]
/// ```
public enum PropertyToFetch: Sendable, Hashable, ExpressibleByStringLiteral {
    /// An attribute, a to-one relationship (its value is the destination's ID) or a key path.
    case property(String)
    /// A named expression.
    case expression(ExpressionDescription)

    /// A string literal is a property or key path: `"post.title"` is `.property("post.title")`.
    public init(stringLiteral value: String) { self = .property(value) }

    /// The key this column's value appears under.
    public var name: String {
        switch self {
        case .property(let key): key
        case .expression(let description): description.name
        }
    }
}

/// A row of a dictionary fetch, by column name.
///
/// For example:
///
/// ```swift
/// let rows = try context.fetch(FetchRequest<FetchedDictionary>(entityName: "Quake"))
/// rows.first?["place"]      // .string("Tokyo")
/// ```
public typealias FetchedDictionary = [String: StoreValue]

extension Dictionary: FetchRequestResult where Key == String, Value == StoreValue {
    /// `.dictionary`: a `FetchedDictionary` request returns a dictionary per row (`NSDictionaryResultType`).
    public static var fetchResultType: FetchResultType { .dictionary }
}
