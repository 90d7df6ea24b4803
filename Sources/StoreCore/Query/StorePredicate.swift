import Foundation

/// A condition on objects — Core Data's `NSPredicate` as a value tree: comparisons joined by
/// AND, OR and NOT, and the constants TRUEPREDICATE and FALSEPREDICATE.
///
/// For example:
///
/// ```swift
/// let recent: StorePredicate = .comparison(.init(.keyPath("magnitude"), .greaterThan, .constant(2.5)))
/// let both: StorePredicate = .and([recent, .comparison(.init(.keyPath("place"), .beginsWith, .constant("Cal")))])
/// ```
public indirect enum StorePredicate: Sendable, Hashable {
    /// TRUEPREDICATE (`true`) or FALSEPREDICATE (`false`).
    case constant(Bool)
    /// A comparison of two expressions.
    case comparison(StoreComparison)
    /// True when every sub-predicate is true (true when empty).
    case and([StorePredicate])
    /// True when any sub-predicate is true (false when empty).
    case or([StorePredicate])
    /// True when the sub-predicate is false.
    case not(StorePredicate)
}

/// A comparison between two expressions, with Core Data's operators, modifiers and options.
///
/// For example:
///
/// ```swift
/// // ANY comments.author ==[c] "ada"
/// StoreComparison(.keyPath("comments.author"), .equalTo, .constant("ada"), modifier: .any, options: .caseInsensitive)
/// ```
public struct StoreComparison: Sendable, Hashable {
    /// How the two sides are compared.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equalTo = "=="
        case notEqualTo = "!="
        case lessThan = "<"
        case lessThanOrEqualTo = "<="
        case greaterThan = ">"
        case greaterThanOrEqualTo = ">="
        case matches = "MATCHES"
        case like = "LIKE"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case `in` = "IN"
        case contains = "CONTAINS"
        case between = "BETWEEN"
    }

    /// Whether the left side is one value or a collection each of whose elements is compared.
    public enum Modifier: String, Sendable, Hashable {
        case direct
        /// `ANY` / `SOME`: true when some element satisfies the comparison. `NONE` is `NOT ANY`.
        case any
        /// `ALL`: true when every element satisfies the comparison.
        case all
    }

    /// String comparison options: `[c]`, `[d]`, `[n]`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
        public static let normalized = Options(rawValue: 4)
    }

    public var left: StoreExpression
    public var `operator`: Operator
    public var right: StoreExpression
    public var modifier: Modifier
    public var options: Options

    public init(
        _ left: StoreExpression, _ operator: Operator, _ right: StoreExpression,
        modifier: Modifier = .direct, options: Options = []
    ) {
        self.left = left
        self.operator = `operator`
        self.right = right
        self.modifier = modifier
        self.options = options
    }
}
