import Foundation

/// Evaluates predicates and expressions in memory, with Core Data's semantics.
package struct PredicateEvaluator {
    package var variables: [String: EvaluatedValue] = [:]

    package init() {}

    /// Whether `source` satisfies `predicate`.
    package func evaluate(_ predicate: StorePredicate, on source: any PredicateEvaluationSource) throws -> Bool {
        switch predicate {
        case .constant(let value):
            return value
        case .and(let parts):
            for part in parts where try !evaluate(part, on: source) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, on: source) { return true }
            return false
        case .not(let inner):
            return try !evaluate(inner, on: source)
        case .comparison(let comparison):
            return try evaluate(comparison, on: source)
        }
    }

    /// The value of an expression for `source`.
    package func value(of expression: StoreExpression, on source: any PredicateEvaluationSource) throws -> EvaluatedValue {
        switch expression {
        case .constant(let value):
            return .value(value)
        case .evaluatedObject:
            return .object(source)
        case .keyPath(let path):
            return try value(ofKeyPath: path, from: .object(source))
        case .member(let base, let path):
            return try value(ofKeyPath: path, from: value(of: base, on: source))
        case .variable(let name):
            guard let bound = variables[name] else {
                throw FetchError(.unboundVariable, "variable $\(name) has no value; substitute it before fetching")
            }
            return bound
        case .aggregate(let items):
            return .collection(try items.map { try value(of: $0, on: source) })
        case .function(let name, _), .subquery(_, let name, _):
            throw FetchError(.unsupported, "the in-memory evaluator does not support \(name) yet")
        case .conditional(let predicate, let then, let otherwise):
            return try value(of: try evaluate(predicate, on: source) ? then : otherwise, on: source)
        }
    }

    private func value(ofKeyPath path: String, from start: EvaluatedValue) throws -> EvaluatedValue {
        var current = start
        for component in path.split(separator: ".") {
            let key = String(component)
            if key == "self" || key == "SELF" { continue }
            current = try step(current, key)
        }
        return current
    }

    private func step(_ value: EvaluatedValue, _ key: String) throws -> EvaluatedValue {
        switch value {
        case .object(let object):
            return try object.evaluationValue(forKey: key)
        case .collection(let items):
            if key == "@count" { return .value(.integer(Int64(items.count))) }
            return .collection(try items.map { try step($0, key) }.flatMap { element -> [EvaluatedValue] in
                if case .collection(let nested) = element { return nested }
                return [element]
            })
        case .value:
            return .null
        }
    }

    private func evaluate(_ comparison: StoreComparison, on source: any PredicateEvaluationSource) throws -> Bool {
        let left = try value(of: comparison.left, on: source)
        let right = try value(of: comparison.right, on: source)
        switch comparison.modifier {
        case .direct:
            return compare(left, comparison.operator, right, comparison.options)
        case .any:
            guard case .collection(let items) = left else { return compare(left, comparison.operator, right, comparison.options) }
            return items.contains { compare($0, comparison.operator, right, comparison.options) }
        case .all:
            guard case .collection(let items) = left else { return compare(left, comparison.operator, right, comparison.options) }
            return items.allSatisfy { compare($0, comparison.operator, right, comparison.options) }
        }
    }

    private func compare(_ left: EvaluatedValue, _ op: StoreComparison.Operator, _ right: EvaluatedValue, _ options: StoreComparison.Options) -> Bool {
        switch op {
        case .in:
            if case .collection(let items) = right { return items.contains { ValueComparison.equal($0.storeValue, left.storeValue, options) } }
            return ValueComparison.contains(right.storeValue, left.storeValue, options)
        case .contains:
            if case .collection(let items) = left { return items.contains { ValueComparison.equal($0.storeValue, right.storeValue, options) } }
            return ValueComparison.contains(left.storeValue, right.storeValue, options)
        case .between:
            guard case .collection(let bounds) = right, bounds.count == 2 else { return false }
            let l = left.storeValue
            guard let low = ValueComparison.order(l, bounds[0].storeValue, options),
                let high = ValueComparison.order(l, bounds[1].storeValue, options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        default:
            return ValueComparison.compare(left.storeValue, op, right.storeValue, options)
        }
    }
}
