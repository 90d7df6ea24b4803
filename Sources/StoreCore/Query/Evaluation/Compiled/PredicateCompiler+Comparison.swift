/// Comparisons whose sides are the entity's own attributes and constants.
extension PredicateCompiler {
    /// One side of a comparison the compiler reads without the tree walker.
    enum Operand {
        /// An attribute of the entity, by property index.
        case attribute(Int)
        case constant(StoreValue)
        /// An aggregate of constants (`{1, 2}`, or an array given for `%@`).
        case list([StoreValue])
    }

    /// The comparison as a closure, or `nil` when a side needs the tree walker.
    func compile(_ comparison: StoreComparison) -> Test? {
        guard let left = operand(comparison.left), let right = operand(comparison.right) else { return nil }
        // ANY and ALL only differ from a direct comparison when the left side is a collection.
        if case .list = left { return nil }
        let op = comparison.operator, options = comparison.options
        if case .attribute(let index) = left {
            switch right {
            case .constant(let constant):
                if let test = attributeTest(index, op, constant, options) { return test }
            case .list(let items):
                if let test = attributeTest(index, op, items, options) { return test }
            case .attribute:
                break
            }
        }
        return valueTest(left, op, right, options)
    }

    func operand(_ expression: StoreExpression) -> Operand? {
        switch expression {
        case .constant(let value):
            return .constant(value)
        case .keyPath(let key):
            return attributeIndex(key).map(Operand.attribute)
        case .aggregate(let items):
            var values: [StoreValue] = []
            for item in items {
                guard case .constant(let value) = item else { return nil }
                values.append(value)
            }
            return .list(values)
        default:
            return nil
        }
    }

    /// An attribute against a constant, with the constant prepared; `nil` for the rare
    /// operator and constant pairs left to ``valueTest(_:_:_:_:)``.
    private func attributeTest(_ index: Int, _ op: StoreComparison.Operator, _ constant: StoreValue, _ options: StoreComparison.Options) -> Test? {
        switch op {
        case .equalTo:
            let equality = ConstantEquality(constant, options: options)
            return { equality.matches($0.indexedValue(at: index)) }
        case .notEqualTo:
            let equality = ConstantEquality(constant, options: options)
            return { !equality.matches($0.indexedValue(at: index)) }
        case .lessThan:
            let order = ConstantOrder(constant, options: options)
            return { order.order(of: $0.indexedValue(at: index)) == .orderedAscending }
        case .lessThanOrEqualTo:
            let order = ConstantOrder(constant, options: options)
            return {
                let result = order.order(of: $0.indexedValue(at: index))
                return result == .orderedAscending || result == .orderedSame
            }
        case .greaterThan:
            let order = ConstantOrder(constant, options: options)
            return { order.order(of: $0.indexedValue(at: index)) == .orderedDescending }
        case .greaterThanOrEqualTo:
            let order = ConstantOrder(constant, options: options)
            return {
                let result = order.order(of: $0.indexedValue(at: index))
                return result == .orderedDescending || result == .orderedSame
            }
        case .beginsWith, .endsWith, .contains, .like:
            // Both sides must be strings, else the comparison is false.
            guard case .string(let text) = constant else { return { _ in false } }
            return stringTest(index, op, text, options)
        case .matches:
            guard case .string(let pattern) = constant else { return { _ in false } }
            // A pattern that does not compile is left to the tree walker, which throws when it
            // first meets a string to match, as it always has.
            guard let compiled = try? evaluator.regularExpressions.compiled(pattern, options: options) else { return nil }
            return {
                guard case .string(let text) = $0.indexedValue(at: index) else { return false }
                return compiled.matches(text)
            }
        case .in, .between:
            return nil
        }
    }

    private func stringTest(_ index: Int, _ op: StoreComparison.Operator, _ constant: String, _ options: StoreComparison.Options) -> Test {
        let prepared = PreparedString(constant, options: options)
        switch op {
        case .beginsWith:
            return {
                guard case .string(let text) = $0.indexedValue(at: index) else { return false }
                return prepared.isPrefix(of: text)
            }
        case .endsWith:
            return {
                guard case .string(let text) = $0.indexedValue(at: index) else { return false }
                return prepared.isSuffix(of: text)
            }
        case .like:
            let pattern = PreparedLike(constant, options: options)
            return {
                guard case .string(let text) = $0.indexedValue(at: index) else { return false }
                return pattern.matches(text)
            }
        default:
            return {
                guard case .string(let text) = $0.indexedValue(at: index) else { return false }
                return prepared.isContained(in: text)
            }
        }
    }

    /// An attribute against a list of constants: `IN` by a set of keys, `BETWEEN` by two
    /// prepared bounds; `nil` for other operators.
    private func attributeTest(_ index: Int, _ op: StoreComparison.Operator, _ items: [StoreValue], _ options: StoreComparison.Options) -> Test? {
        switch op {
        case .in:
            let keys = Set(items.map { EqualityKey($0, options: options) })
            return { keys.contains(EqualityKey($0.indexedValue(at: index), options: options)) }
        case .between:
            guard items.count == 2 else { return { _ in false } }
            let low = ConstantOrder(items[0], options: options), high = ConstantOrder(items[1], options: options)
            return {
                let value = $0.indexedValue(at: index)
                guard let above = low.order(of: value), let below = high.order(of: value) else { return false }
                return above != .orderedAscending && below != .orderedDescending
            }
        default:
            return nil
        }
    }

    /// Any other comparison of attributes and constants: the values read by index, compared by
    /// the tree walker's own comparison.
    private func valueTest(_ left: Operand, _ op: StoreComparison.Operator, _ right: Operand, _ options: StoreComparison.Options) -> Test {
        let evaluator = self.evaluator
        let readLeft = reader(left), readRight = reader(right)
        return { try evaluator.compare(readLeft($0), op, readRight($0), options) }
    }

    private func reader(_ operand: Operand) -> (Source) -> EvaluatedValue {
        switch operand {
        case .attribute(let index):
            return { .value($0.indexedValue(at: index)) }
        case .constant(let value):
            let evaluated = EvaluatedValue.value(value)
            return { _ in evaluated }
        case .list(let items):
            let evaluated = EvaluatedValue.collection(items.map(EvaluatedValue.value))
            return { _ in evaluated }
        }
    }
}
