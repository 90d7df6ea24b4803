import Foundation

// Each `#Predicate` node Stowage can run, translated into the query tree. Children are translated
// through the translator, which names any node that has no translation.

typealias TranslatedNode = PredicateTranslator.Node

private func comparison(
    _ left: StoreExpression, _ op: StoreComparison.Operator, _ right: StoreExpression, modifier: StoreComparison.Modifier = .direct
) -> TranslatedNode {
    .predicate(.comparison(StoreComparison(left, op, right, modifier: modifier)))
}

// MARK: Values and key paths

extension PredicateExpressions.Variable: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .expression(try translator.value(of: key))
    }
}

extension PredicateExpressions.Value: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        switch PredicateArgument.expression(for: value as Any, specifier: "@") {
        case .success(let constant): return .expression(constant)
        case .failure: throw PredicateTranslator.untranslatable(self, "holds a \(Output.self), which is not a value a store can compare")
        }
    }
}

extension PredicateExpressions.NilLiteral: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode { .expression(.constant(.null)) }
}

extension PredicateExpressions.KeyPath: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let base = try translator.expression(root)
        switch ModelKeyPaths.resolve(keyPath) {
        case .key(let key): return .expression(PredicateParser.member(of: base, key))
        case .objectID: return .expression(base)  // `$0.author?.objectID == id`: author == id
        case nil: break
        }
        if let collection = Root.Output.self as? any TranslatableCollection.Type,
            let property = collection.property(for: keyPath)
        {
            switch property {
            case .count: return .expression(PredicateParser.member(of: base, "@count"))
            case .isEmpty: return comparison(PredicateParser.member(of: base, "@count"), .equalTo, .constant(.integer(0)))
            case .isEmptyString: return comparison(base, .equalTo, .constant(.string("")))
            }
        }
        throw FetchError(
            .untranslatablePredicate,
            "#Predicate: \(ModelKeyPaths.describe(keyPath)); a store query reads only @Attribute and @Relationship properties of a "
                + "ManagedObject subclass, objectID, and a collection's count or isEmpty"
        )
    }
}

/// Collection types whose `count` and `isEmpty` a predicate may read.
protocol TranslatableCollection {
    static func property(for keyPath: AnyKeyPath) -> TranslatableCollectionProperty?
}

enum TranslatableCollectionProperty {
    case count, isEmpty, isEmptyString
}

extension Set: TranslatableCollection {
    static func property(for keyPath: AnyKeyPath) -> TranslatableCollectionProperty? {
        keyPath == \Set<Element>.count ? .count : keyPath == \Set<Element>.isEmpty ? .isEmpty : nil
    }
}

extension Array: TranslatableCollection {
    static func property(for keyPath: AnyKeyPath) -> TranslatableCollectionProperty? {
        keyPath == \[Element].count ? .count : keyPath == \[Element].isEmpty ? .isEmpty : nil
    }
}

extension String: TranslatableCollection {
    static func property(for keyPath: AnyKeyPath) -> TranslatableCollectionProperty? {
        keyPath == \String.isEmpty ? .isEmptyString : nil
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        // `author?.name`: a key path through a nil to-one reads as nil, as the optional chain does.
        translator.bind(variable.key, to: try translator.expression(wrapped))
        return try translator.node(transform)
    }
}

extension PredicateExpressions.ForcedUnwrap: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        try translator.node(inner)
    }
}

extension PredicateExpressions.NilCoalesce: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let value = try translator.expression(lhs)
        let fallback = try translator.expression(rhs)
        return .expression(.conditional(.comparison(StoreComparison(value, .notEqualTo, .constant(.null))), value, fallback))
    }
}

// MARK: Comparisons

extension PredicateExpressions.Equal: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        comparison(try translator.expression(lhs), .equalTo, try translator.expression(rhs))
    }
}

extension PredicateExpressions.NotEqual: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        comparison(try translator.expression(lhs), .notEqualTo, try translator.expression(rhs))
    }
}

extension PredicateExpressions.Comparison: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let op: StoreComparison.Operator = switch self.op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqualTo
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqualTo
        @unknown default: throw PredicateTranslator.untranslatable(self, "uses an operator Stowage does not know")
        }
        return comparison(try translator.expression(lhs), op, try translator.expression(rhs))
    }
}

extension PredicateExpressions.Conjunction: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .predicate(.and(flattened(try translator.predicate(lhs), try translator.predicate(rhs), and: true)))
    }
}

extension PredicateExpressions.Disjunction: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .predicate(.or(flattened(try translator.predicate(lhs), try translator.predicate(rhs), and: false)))
    }
}

/// `a && b && c` arrives as `(a && b) && c`: one AND (or OR) of three parts, not two nested.
private func flattened(_ lhs: StorePredicate, _ rhs: StorePredicate, and: Bool) -> [StorePredicate] {
    [lhs, rhs].flatMap { side -> [StorePredicate] in
        switch side {
        case .and(let parts) where and: parts
        case .or(let parts) where !and: parts
        default: [side]
        }
    }
}

extension PredicateExpressions.Negation: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .predicate(.not(try translator.predicate(wrapped)))
    }
}

extension PredicateExpressions.Conditional: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let condition = try translator.predicate(test)
        let whenTrue = try translator.node(trueBranch)
        let whenFalse = try translator.node(falseBranch)
        switch (whenTrue, whenFalse) {
        case (.expression(let a), .expression(let b)) where !a.isBooleanConstant || !b.isBooleanConstant:
            return .expression(.conditional(condition, a, b))
        default:
            // A condition either way: (c AND a) OR (NOT c AND b).
            let a = try translator.predicate(trueBranch)
            let b = try translator.predicate(falseBranch)
            return .predicate(.or([.and([condition, a]), .and([.not(condition), b])]))
        }
    }
}

private extension StoreExpression {
    var isBooleanConstant: Bool {
        if case .constant(.boolean) = self { return true }
        return false
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let function = switch op {
        case .add: "add:to:"
        case .subtract: "from:subtract:"
        case .multiply: "multiply:by:"
        @unknown default: throw PredicateTranslator.untranslatable(self, "uses an operator Stowage does not know")
        }
        return .expression(.function(function, [try translator.expression(lhs), try translator.expression(rhs)]))
    }
}

extension PredicateExpressions.FloatDivision: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .expression(.function("divide:by:", [try translator.expression(lhs), try translator.expression(rhs)]))
    }
}

extension PredicateExpressions.IntDivision: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .expression(.function("divide:by:", [try translator.expression(lhs), try translator.expression(rhs)]))
    }
}

extension PredicateExpressions.IntRemainder: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .expression(.function("modulus:by:", [try translator.expression(lhs), try translator.expression(rhs)]))
    }
}

extension PredicateExpressions.UnaryMinus: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .expression(.function("multiply:by:", [.constant(.integer(-1)), try translator.expression(wrapped)]))
    }
}

// MARK: Strings

extension PredicateExpressions.CollectionContainsCollection: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        guard Base.Output.self == String.self else { throw PredicateTranslator.untranslatable(self, "is only translated for strings") }
        return comparison(try translator.expression(base), .contains, try translator.expression(other))
    }
}

extension PredicateExpressions.SequenceStartsWith: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        guard Base.Output.self == String.self else { throw PredicateTranslator.untranslatable(self, "is only translated for strings") }
        return comparison(try translator.expression(base), .beginsWith, try translator.expression(prefix))
    }
}

// MARK: Collections

extension PredicateExpressions.SequenceContains: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        // `[a, b].contains($0.title)`: title IN {a, b}; `$0.tags.contains(tag)`: tag IN tags.
        comparison(try translator.expression(element), .in, try translator.expression(sequence))
    }
}

extension PredicateExpressions.SequenceContainsWhere: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let matches = try translator.subquery(over: sequence, variable: variable.key, condition: test)
        return comparison(.member(matches, "@count"), .greaterThan, .constant(.integer(0)))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let source = try translator.expression(sequence)
        let name = translator.bindSubqueryVariable(variable.key)
        let failing = StoreExpression.subquery(collection: source, variable: name, predicate: .not(try translator.predicate(test)))
        return comparison(.member(failing, "@count"), .equalTo, .constant(.integer(0)))
    }
}

extension PredicateExpressions.Filter: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        .expression(try translator.subquery(over: sequence, variable: variable.key, condition: filter))
    }
}

// MARK: Ranges

extension PredicateExpressions.RangeExpressionContains: StoreTranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(FetchError) -> TranslatedNode {
        let value = try translator.expression(element)
        guard let range = range as? any TranslatableRange else { throw PredicateTranslator.untranslatable(range) }
        let (lower, upper, isClosed) = try range.bounds(with: &translator)
        if isClosed { return comparison(value, .between, .aggregate([lower, upper])) }
        return .predicate(.and([
            .comparison(StoreComparison(value, .greaterThanOrEqualTo, lower)),
            .comparison(StoreComparison(value, .lessThan, upper)),
        ]))
    }
}

/// A range in a predicate: its bounds and whether the upper one is included.
protocol TranslatableRange {
    func bounds(with translator: inout PredicateTranslator) throws(FetchError) -> (StoreExpression, StoreExpression, Bool)
}

extension PredicateExpressions.ClosedRange: TranslatableRange {
    func bounds(with translator: inout PredicateTranslator) throws(FetchError) -> (StoreExpression, StoreExpression, Bool) {
        (try translator.expression(lower), try translator.expression(upper), true)
    }
}

extension PredicateExpressions.Range: TranslatableRange {
    func bounds(with translator: inout PredicateTranslator) throws(FetchError) -> (StoreExpression, StoreExpression, Bool) {
        (try translator.expression(lower), try translator.expression(upper), false)
    }
}

extension PredicateExpressions.Value: TranslatableRange {
    func bounds(with translator: inout PredicateTranslator) throws(FetchError) -> (StoreExpression, StoreExpression, Bool) {
        // A captured range: `let years = 2000...2010; #Predicate { years.contains($0.year) }`.
        guard let range = value as? any ConstantRange else { throw PredicateTranslator.untranslatable(self, "is not a range") }
        let (lower, upper, isClosed) = range.constantBounds
        func constant(_ bound: Any) throws(FetchError) -> StoreExpression {
            guard case .success(let constant) = PredicateArgument.expression(for: bound, specifier: "@") else {
                throw PredicateTranslator.untranslatable(self, "holds a range of \(type(of: bound)), which a store cannot compare")
            }
            return constant
        }
        return (try constant(lower), try constant(upper), isClosed)
    }
}

/// A range value captured by a predicate.
protocol ConstantRange {
    var constantBounds: (Any, Any, Bool) { get }
}

extension ClosedRange: ConstantRange {
    var constantBounds: (Any, Any, Bool) { (lowerBound, upperBound, true) }
}

extension Range: ConstantRange {
    var constantBounds: (Any, Any, Bool) { (lowerBound, upperBound, false) }
}
