import Foundation
import StoreCore

/// Constant folding: parts of a predicate that read no object (`2 ** 3`, `now() - 86400`,
/// `median:({5, 1, 3})`, `{1, 2} == {1, 2}`) are evaluated once, at compile time, by the
/// in-memory evaluator itself — so they give exactly its values and its errors.
extension QueryTranslator {
    /// Whether the expression reads nothing of the evaluated object and no outer variable.
    package func isConstant(_ expression: StoreExpression) -> Bool {
        switch expression {
        case .constant: return true
        case .evaluatedObject, .keyPath, .variable: return false
        case .aggregate(let items): return items.allSatisfy(isConstant)
        case .member(let base, _): return isConstant(base)
        case .function(let name, let arguments): return name != "random" && name != "randomn:" && arguments.allSatisfy(isConstant)
        case .conditional(let predicate, let then, let otherwise):
            return isConstant(predicate) && isConstant(then) && isConstant(otherwise)
        case .subquery(let collection, let variable, let predicate):
            // Inside, key paths read the (constant) element; only outer variables would vary.
            return isConstant(collection) && predicate.variableNames.subtracting([variable]).isEmpty
        }
    }

    package func isConstant(_ predicate: StorePredicate) -> Bool {
        switch predicate {
        case .constant: return true
        case .comparison(let comparison): return isConstant(comparison.left) && isConstant(comparison.right)
        case .and(let parts), .or(let parts): return parts.allSatisfy(isConstant)
        case .not(let inner): return isConstant(inner)
        }
    }

    /// The value of a constant expression, as an operand.
    package func folded(_ expression: StoreExpression) throws -> QueryOperand {
        operand(of: try PredicateEvaluator().value(of: expression, on: ConstantSource()))
    }

    /// Whether a constant comparison holds.
    package func folded(_ comparison: StoreComparison) throws -> SQLCondition {
        try PredicateEvaluator().evaluate(.comparison(comparison), on: ConstantSource()) ? .true : .false
    }

    private func operand(of value: EvaluatedValue) -> QueryOperand {
        switch value {
        case .value(let value): .scalar(constant(value))
        case .collection(let items): .list(items.map(operand(of:)))
        case .object(let object): .scalar(constant(object.evaluationObjectID.map(StoreValue.objectID) ?? .null))
        }
    }
}

/// The evaluated object of a constant expression: it has no properties (constant expressions
/// never read it; a key path inside a constant `SUBQUERY` reads the element instead).
private struct ConstantSource: PredicateEvaluationSource {
    package var evaluationObjectID: ManagedObjectID? { nil }
    package func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        throw FetchError(.invalidKeyPath, "a constant expression has no property '\(key)'")
    }
}
