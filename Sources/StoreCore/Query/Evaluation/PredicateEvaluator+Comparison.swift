import Foundation

extension PredicateEvaluator {
    func evaluate(_ comparison: StoreComparison, with subject: EvaluatedValue) throws -> Bool {
        let left = try value(of: comparison.left, with: subject)
        let right = try value(of: comparison.right, with: subject)
        let op = comparison.operator, options = comparison.options
        switch comparison.modifier {
        case .direct:
            return try compare(left, op, right, options)
        case .any:
            guard case .collection(let items) = left else { return try compare(left, op, right, options) }
            for item in items where try compare(item, op, right, options) { return true }
            return false
        case .all:
            guard case .collection(let items) = left else { return try compare(left, op, right, options) }
            for item in items where try !compare(item, op, right, options) { return false }
            return true
        }
    }

    func compare(_ left: EvaluatedValue, _ op: StoreComparison.Operator, _ right: EvaluatedValue, _ options: StoreComparison.Options) throws -> Bool {
        switch op {
        case .in:
            if case .collection(let items) = right { return items.contains { Self.equal($0, left, options) } }
            return ValueComparison.contains(right.storeValue, left.storeValue, options)
        case .contains:
            if case .collection(let items) = left { return items.contains { Self.equal($0, right, options) } }
            return ValueComparison.contains(left.storeValue, right.storeValue, options)
        case .between:
            guard case .collection(let bounds) = right, bounds.count == 2 else { return false }
            let l = left.storeValue
            guard let low = ValueComparison.order(l, bounds[0].storeValue, options),
                let high = ValueComparison.order(l, bounds[1].storeValue, options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .equalTo:
            return Self.equal(left, right, options)
        case .notEqualTo:
            return !Self.equal(left, right, options)
        case .matches:
            guard case .string(let text) = left.storeValue, case .string(let pattern) = right.storeValue else { return false }
            return try regularExpressions.matches(text, pattern: pattern, options: options)
        default:
            return ValueComparison.compare(left.storeValue, op, right.storeValue, options)
        }
    }

    /// Equality of evaluated values: collections element by element, objects by ID, values by
    /// ``ValueComparison/equal(_:_:_:)``.
    static func equal(_ a: EvaluatedValue, _ b: EvaluatedValue, _ options: StoreComparison.Options) -> Bool {
        switch (a, b) {
        case (.collection(let x), .collection(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, options) }
        case (.collection, _), (_, .collection):
            return false
        default:
            return ValueComparison.equal(a.storeValue, b.storeValue, options)
        }
    }
}
