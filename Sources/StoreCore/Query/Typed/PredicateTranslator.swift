import Foundation

/// A Foundation predicate expression (a node of what `#Predicate` builds) that has a form in the
/// query tree.
protocol StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> PredicateTranslator.Node
}

/// Translates a Foundation `Predicate` into a ``StorePredicate``, node by node, so that every
/// store runs it as it runs a format string.
///
/// Key paths of `@Attribute`/`@Relationship` properties become model keys (see
/// ``ModelKeyPaths``); captured values become constants; the closures of `filter`,
/// `contains(where:)` and `allSatisfy` become subqueries over the to-many relationship. A node
/// with no form in the tree is a ``FetchError`` (`.untranslatablePredicate`) naming it.
///
/// For example:
///
/// ```swift
/// var translator = PredicateTranslator(root: predicate.variable)
/// let tree = try translator.predicate(predicate.expression)   // title BEGINSWITH "Misty" AND views > 10
/// ```
struct PredicateTranslator {
    /// A translated node: a condition, or a value.
    enum Node {
        case predicate(StorePredicate)
        case expression(StoreExpression)
    }

    private var variables: [PredicateExpressions.VariableID: StoreExpression] = [:]
    private var subqueryVariables = 0
    /// The nodes being translated, outermost first: where a failure stands in the expression.
    private var trail = PredicateTrail()

    /// A translator for a predicate over `root`, which stands for the fetched object.
    init<Root>(root: PredicateExpressions.Variable<Root>) {
        variables[root.key] = .evaluatedObject
    }

    /// Any node, as a condition or a value. A failure says where the node stands in the
    /// expression (``PredicateTrail``).
    mutating func node(_ expression: Any) throws(FetchError) -> Node {
        trail.enter(expression)
        defer { trail.leave() }
        do throws(FetchError) {
            guard let translatable = expression as? any StoreTranslatableExpression else { throw Self.untranslatable(expression) }
            return try translatable.translate(with: &self)
        } catch {
            throw trail.placing(error)
        }
    }

    /// A node used as a condition: a Boolean value `v` becomes `v == YES`.
    mutating func predicate(_ expression: Any) throws(FetchError) -> StorePredicate {
        switch try node(expression) {
        case .predicate(let predicate): return predicate
        case .expression(.constant(.boolean(let value))): return .constant(value)
        case .expression(let value): return .comparison(StoreComparison(value, .equalTo, .constant(.boolean(true))))
        }
    }

    /// A node used as a value: a condition `c` becomes `TERNARY(c, YES, NO)`.
    mutating func expression(_ expression: Any) throws(FetchError) -> StoreExpression {
        switch try node(expression) {
        case .expression(let value): return value
        case .predicate(.constant(let value)): return .constant(.boolean(value))
        case .predicate(let condition): return .conditional(condition, .constant(.boolean(true)), .constant(.boolean(false)))
        }
    }

    /// Gives a closure's parameter (`filter { $0… }`) a fresh subquery variable name.
    mutating func bindSubqueryVariable(_ id: PredicateExpressions.VariableID) -> String {
        subqueryVariables += 1
        let name = "v\(subqueryVariables)"
        variables[id] = .variable(name)
        return name
    }

    /// Makes a variable stand for an expression (`author?.name`: the unwrapped `author`).
    mutating func bind(_ id: PredicateExpressions.VariableID, to value: StoreExpression) {
        variables[id] = value
    }

    /// What a variable stands for.
    func value(of id: PredicateExpressions.VariableID) throws(FetchError) -> StoreExpression {
        guard let value = variables[id] else {
            throw FetchError(.untranslatablePredicate, "#Predicate: a variable is used outside the closure that declares it")
        }
        return value
    }

    /// `SUBQUERY(collection, $v, condition)` for a closure over a to-many relationship.
    mutating func subquery(
        over collection: Any, variable: PredicateExpressions.VariableID, condition: Any
    ) throws(FetchError) -> StoreExpression {
        let source = try expression(collection)
        let name = bindSubqueryVariable(variable)
        let predicate = try predicate(condition)
        return .subquery(collection: source, variable: name, predicate: predicate)
    }

    /// The error for a node with no form in the query tree, naming it.
    static func untranslatable(_ expression: Any, _ detail: String = "") -> FetchError {
        let name = constructName(of: type(of: expression))
        let reason = detail.isEmpty ? "has no form in a store query" : detail
        return FetchError(.untranslatablePredicate, "#Predicate: \(name) \(reason)")
    }

    /// `PredicateExpressions.SequenceMaximum<…>` → `SequenceMaximum`.
    static func constructName(of type: Any.Type) -> String {
        let full = String(describing: type)
        let plain = full.prefix { $0 != "<" }
        return String(plain.split(separator: ".").last ?? plain[...])
    }
}
