/// One side of a comparison in the string-free predicate builder: a key path, a value or an
/// arithmetic combination of them, with an optional `ANY`/`ALL`/`NONE` modifier.
///
/// Comparison operators on terms make ``StorePredicate``s, which combine with `&&`, `||` and `!`.
/// Terms are not `Equatable`, so `==` on them always builds a predicate.
///
/// For example:
///
/// ```swift
/// let p: StorePredicate = .key("magnitude") > 2.5 && .key("place").beginsWith("Cal", caseInsensitive: true)
/// let q: StorePredicate = .key("comments").count >= 3 || .key("tags.name").any == "swift"
/// let r: StorePredicate = .key("views") * 2 + .key("likes") > 100 && !.key("title").isNil
/// ```
public struct StoreTerm: Sendable {
    /// How a collection on the left of a comparison is compared.
    public enum Quantifier: Sendable {
        /// The quantifiers:
        /// - `none`: no quantifier; the term is compared as one value.
        /// - `any`: `ANY`, true when some element satisfies the comparison.
        /// - `all`: `ALL`, true when every element satisfies the comparison.
        /// - `noneOf`: `NONE`, true when no element satisfies the comparison (built as `NOT ANY`).
        case none, any, all, noneOf
    }

    /// The expression the term stands for.
    public var expression: StoreExpression
    var quantifier: Quantifier = .none

    /// A term for any expression, for what `key`, `value`, `variable` and `function` do not cover.
    public init(_ expression: StoreExpression) { self.expression = expression }

    /// A key path from the evaluated object (`"author.name"`, `"comments.@count"`).
    public static func key(_ path: String) -> StoreTerm { StoreTerm(.keyPath(path)) }
    /// A constant value.
    public static func value(_ value: some StoreValueConvertible) -> StoreTerm { StoreTerm(.constant(value.storeValue)) }
    /// A `$NAME` variable, substituted later.
    public static func variable(_ name: String) -> StoreTerm { StoreTerm(.variable(name)) }
    /// The evaluated object itself (`SELF`).
    public static var evaluatedObject: StoreTerm { StoreTerm(.evaluatedObject) }
    /// A Core Data expression function applied to terms: `.function("sqrt:", .key("area"))`.
    public static func function(_ name: String, _ arguments: StoreTerm...) -> StoreTerm {
        StoreTerm(.function(name, arguments.map(\.expression)))
    }

    /// A key path followed further (`.key("author").key("name")`).
    public func key(_ path: String) -> StoreTerm { StoreTerm(PredicateParser.member(of: expression, path)) }
    /// `@count` of a to-many key path or aggregate.
    public var count: StoreTerm { key("@count") }
    /// `@sum.path` (or `@sum` of the collection itself when `path` is empty).
    public func sum(_ path: String = "") -> StoreTerm { key(path.isEmpty ? "@sum" : "@sum." + path) }
    /// `@avg.path`.
    public func average(_ path: String = "") -> StoreTerm { key(path.isEmpty ? "@avg" : "@avg." + path) }
    /// `@min.path`.
    public func min(_ path: String = "") -> StoreTerm { key(path.isEmpty ? "@min" : "@min." + path) }
    /// `@max.path`.
    public func max(_ path: String = "") -> StoreTerm { key(path.isEmpty ? "@max" : "@max." + path) }

    /// `ANY term …`: true when some element of the collection satisfies the comparison.
    public var any: StoreTerm { quantified(.any) }
    /// `ALL term …`: true when every element satisfies the comparison.
    public var all: StoreTerm { quantified(.all) }
    /// `NONE term …`: true when no element satisfies the comparison.
    public var none: StoreTerm { quantified(.noneOf) }

    private func quantified(_ q: Quantifier) -> StoreTerm {
        var copy = self
        copy.quantifier = q
        return copy
    }

    /// `SUBQUERY(self, $variable, predicate)`: the elements of a to-many collection that satisfy
    /// `predicate`, in which `.variable(variable)` names each element.
    public func filter(_ variable: String, _ predicate: StorePredicate) -> StoreTerm {
        StoreTerm(.subquery(collection: expression, variable: variable, predicate: predicate))
    }

    /// A comparison with this term on the left.
    func compare(_ op: StoreComparison.Operator, _ right: StoreExpression, _ options: StoreComparison.Options = []) -> StorePredicate {
        let modifier: StoreComparison.Modifier = switch quantifier {
        case .none: .direct
        case .any, .noneOf: .any
        case .all: .all
        }
        let comparison = StorePredicate.comparison(StoreComparison(expression, op, right, modifier: modifier, options: options))
        return quantifier == .noneOf ? .not(comparison) : comparison
    }
}
