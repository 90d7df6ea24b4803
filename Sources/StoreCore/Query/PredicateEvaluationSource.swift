/// Something predicates and sort descriptors can be evaluated against: a managed object, or a
/// snapshot in an atomic store's graph.
package protocol PredicateEvaluationSource {
    /// The object's ID, if it has one.
    var evaluationObjectID: ManagedObjectID? { get }
    /// The value of one property: an attribute, a to-one destination or a to-many collection.
    func evaluationValue(forKey key: String) throws -> EvaluatedValue
    /// The entity the source is an instance of, when it has one: index subscripts read whether
    /// a to-many relationship is ordered from it.
    var evaluationEntity: EntityDescription? { get }
}

extension PredicateEvaluationSource {
    package var evaluationEntity: EntityDescription? { nil }
}

/// A source that answers `FUNCTION(receiver, 'selector', …)` itself: the `$manager` and
/// `$entityPolicy` of a migration's value expressions.
package protocol FunctionCallReceiver: PredicateEvaluationSource {
    func call(_ selector: String, arguments: [EvaluatedValue]) throws -> EvaluatedValue
}

/// A value met while evaluating an expression.
package enum EvaluatedValue {
    case value(StoreValue)
    case object(any PredicateEvaluationSource)
    case collection([EvaluatedValue])

    static var null: EvaluatedValue { .value(.null) }

    /// The value as a store value; objects become their IDs.
    package var storeValue: StoreValue {
        switch self {
        case .value(let v): v
        case .object(let o): o.evaluationObjectID.map(StoreValue.objectID) ?? .null
        case .collection: .null
        }
    }
}

extension EvaluatedValue {
    /// The value as a list: a collection's elements, nothing for NULL, else the value alone.
    var elements: [EvaluatedValue] {
        switch self {
        case .collection(let items): items
        case .value(.null): []
        default: [self]
        }
    }
}
