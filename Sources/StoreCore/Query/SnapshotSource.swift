/// Evaluates predicates against a snapshot, following relationships through `resolve`.
///
/// A class: evaluation passes sources around as existentials, and one reference is cheaper to
/// box and copy than a snapshot, a model and a closure.
package final class SnapshotSource: PredicateEvaluationSource {
    package let snapshot: StoreSnapshot
    package let model: ManagedObjectModel
    package let resolve: (ManagedObjectID) -> StoreSnapshot?

    package init(snapshot: StoreSnapshot, model: ManagedObjectModel, resolve: @escaping (ManagedObjectID) -> StoreSnapshot?) {
        self.snapshot = snapshot
        self.model = model
        self.resolve = resolve
    }

    package var evaluationObjectID: ManagedObjectID? { snapshot.objectID }

    package func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        // Fast path: a stored attribute (only stored properties have values in a snapshot).
        if let value = snapshot.values[key] {
            if case .objectID = value {} else { return .value(value) }
        }
        guard let entity = model.entitiesByName[snapshot.objectID.entityName], let property = entity.propertiesByName[key] else {
            throw FetchError(.invalidKeyPath, "no property '\(key)' on entity \(snapshot.objectID.entityName)")
        }
        guard let relationship = property as? RelationshipDescription else { return .value(snapshot[key]) }
        if relationship.isToMany {
            return .collection((snapshot.toMany[key] ?? []).map(related))
        }
        guard case .objectID(let id) = snapshot[key] else { return .null }
        return related(id)
    }

    private func related(_ id: ManagedObjectID) -> EvaluatedValue {
        guard let target = resolve(id) else { return .value(.objectID(id)) }
        return .object(SnapshotSource(snapshot: target, model: model, resolve: resolve))
    }
}

extension ManagedObject: PredicateEvaluationSource {
    package var evaluationObjectID: ManagedObjectID? { objectID }

    package func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        guard let index = entity.propertyIndexes[key] else {
            throw FetchError(.invalidKeyPath, "no property '\(key)' on entity \(entity.name)")
        }
        guard let relationship = entity.properties[index] as? RelationshipDescription else {
            return .value(attributeValue(at: index))
        }
        if relationship.isToMany { return .collection(toManyObjects(at: index).objects.map { .object($0) }) }
        return toOneObject(at: index).map { .object($0) } ?? .null
    }
}
