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
        /// `==`: equal (numbers of any kind compare by value; nil equals only nil).
        case equalTo = "=="
        /// `!=`: not equal.
        case notEqualTo = "!="
        /// `<`: less than (numbers, dates, strings and data compare in order).
        case lessThan = "<"
        /// `<=`: less than or equal.
        case lessThanOrEqualTo = "<="
        /// `>`: greater than.
        case greaterThan = ">"
        /// `>=`: greater than or equal.
        case greaterThanOrEqualTo = ">="
        /// `MATCHES`: the whole string matches the right side's ICU regular expression.
        case matches = "MATCHES"
        /// `LIKE`: the whole string matches a pattern where `*` is any run of characters and `?` one.
        case like = "LIKE"
        /// `BEGINSWITH`: the string starts with the right side.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`: the string ends with the right side.
        case endsWith = "ENDSWITH"
        /// `IN`: the value is an element of the right collection, or a substring of the right string.
        case `in` = "IN"
        /// `CONTAINS`: the left collection holds the value, or the left string contains the right one.
        case contains = "CONTAINS"
        /// `BETWEEN`: the value lies within the right side's `{lower, upper}`, both bounds included.
        case between = "BETWEEN"
    }

    /// Whether the left side is one value or a collection each of whose elements is compared.
    public enum Modifier: String, Sendable, Hashable {
        /// No modifier: the left side is compared as one value.
        case direct
        /// `ANY` / `SOME`: true when some element satisfies the comparison. `NONE` is `NOT ANY`.
        case any
        /// `ALL`: true when every element satisfies the comparison.
        case all
    }

    /// String comparison options: `[c]`, `[d]`, `[n]`.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits: 1 `[c]`, 2 `[d]`, 4 `[n]`.
        public let rawValue: Int
        /// Options from their bits (1 `[c]`, 2 `[d]`, 4 `[n]`).
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: letter case is ignored (Core Data's `NSCaseInsensitivePredicateOption`).
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: accents and other diacritics are ignored (Core Data's
        /// `NSDiacriticInsensitivePredicateOption`).
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized (Core Data's `NSNormalizedPredicateOption`), a hint
        /// that changes no result.
        public static let normalized = Options(rawValue: 4)
    }

    /// The left side; with `ANY` or `ALL`, the collection whose elements are compared.
    public var left: StoreExpression
    /// How the two sides are compared.
    public var `operator`: Operator
    /// The right side.
    public var right: StoreExpression
    /// `ANY`, `ALL` or neither, applied to the left side.
    public var modifier: Modifier
    /// How strings are compared: `[c]`, `[d]`, `[n]`.
    public var options: Options

    /// Creates the comparison `left operator right` (Core Data's `NSComparisonPredicate`).
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
