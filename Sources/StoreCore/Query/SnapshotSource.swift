/// Evaluates predicates against a snapshot, following relationships through `resolve`.
///
/// A class: evaluation passes sources around as existentials, and one reference is cheaper to
/// box and copy than a snapshot, a model and a closure.
package final class SnapshotSource: PredicateEvaluationSource {
    package let snapshot: StoreSnapshot
    package let model: ManagedObjectModel
    package let resolve: (ManagedObjectID) throws -> StoreSnapshot?

    package init(snapshot: StoreSnapshot, model: ManagedObjectModel, resolve: @escaping (ManagedObjectID) throws -> StoreSnapshot?) {
        self.snapshot = snapshot
        self.model = model
        self.resolve = resolve
    }

    package var evaluationObjectID: ManagedObjectID? { snapshot.objectID }
    package var evaluationEntity: EntityDescription? { snapshot.entity }

    package func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        let entity = snapshot.entity
        guard let index = entity.propertyIndexes[key] else {
            if entity.compositeKeyPaths.contains(key) { return .object(CompositeElementSource(owner: self, keyPath: key)) }
            throw FetchError(.invalidKeyPath, "no property '\(key)' on entity \(snapshot.objectID.entityName)")
        }
        switch entity.layout.kinds[index] {
        case .attribute, .transientAttribute:
            return .value(snapshot.heldProperties.contains(index) ? snapshot[index] : .null)
        case .toMany:
            return .collection(try (snapshot.toMany(at: index) ?? []).map(related))
        case .toOne:
            guard case .objectID(let id) = snapshot[index] else { return .null }
            return try related(id)
        }
    }

    private func related(_ id: ManagedObjectID) throws -> EvaluatedValue {
        guard let target = try resolve(id) else { return .value(.objectID(id)) }
        return .object(SnapshotSource(snapshot: target, model: model, resolve: resolve))
    }
}

extension ManagedObject: PredicateEvaluationSource {
    package var evaluationObjectID: ManagedObjectID? { objectID }
    package var evaluationEntity: EntityDescription? { entity }

    package func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        guard let index = entity.propertyIndexes[key] else {
            if entity.compositeKeyPaths.contains(key) { return .object(CompositeElementSource(owner: self, keyPath: key)) }
            throw FetchError(.invalidKeyPath, "no property '\(key)' on entity \(entity.name)")
        }
        guard let relationship = entity.properties[index] as? RelationshipDescription else {
            return .value(attributeValue(at: index))
        }
        if relationship.isToMany { return .collection(toManyObjects(at: index).objects.map { .object($0) }) }
        return toOneObject(at: index).map { .object($0) } ?? .null
    }
}

/// A composite attribute met on a key path (`location` in `location.latitude`): reading a key
/// from it reads the owner's element attribute (`location.latitude`).
struct CompositeElementSource: PredicateEvaluationSource {
    let owner: any PredicateEvaluationSource
    let keyPath: String

    var evaluationObjectID: ManagedObjectID? { nil }

    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        try owner.evaluationValue(forKey: "\(keyPath).\(key)")
    }
}
