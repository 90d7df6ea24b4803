import Foundation

/// How far a copy between stores has got, reported by
/// ``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:progress:)``.
///
/// For example:
///
/// ```swift
/// try coordinator.migratePersistentStore(store, to: xmlURL, type: .xml) { progress in
///     print("\(progress.completedObjects) of \(progress.totalObjects)")
/// }
/// ```
public struct StoreCopyProgress: Sendable, Hashable {
    /// Objects written to the new store so far.
    public let completedObjects: Int
    /// Objects in the store being copied.
    public let totalObjects: Int

    /// From 0 to 1 (1 for an empty store).
    public var fractionCompleted: Double {
        totalObjects == 0 ? 1 : Double(completedObjects) / Double(totalObjects)
    }
}

/// Copies every object of one store into another, empty one of any type: each object gets a
/// new ID in the destination, and attributes, to-one and to-many relationships (ordered ones in
/// order) are rewritten to name the new IDs.
///
/// Atomic stores receive the whole graph in one save (each of their saves rewrites the file);
/// other stores receive it in batches, so memory stays bounded by the batch, not the store.
struct StoreCopier {
    let source: any PersistentStore
    let destination: any PersistentStore
    let model: ManagedObjectModel
    var batchSize = 5_000

    func copy(progress: (@Sendable (StoreCopyProgress) -> Void)?) throws {
        let entities = try model.entities(forConfiguration: source.configurationName).filter { !$0.isAbstract }
        var sourceIDs: [ManagedObjectID] = []
        for entity in entities {
            var request = StoreFetchRequest(entityName: entity.name, resultType: .managedObjectID)
            request.includesSubentities = false
            guard case .objectIDs(let ids) = try source.execute(request) else {
                throw StoreError(.corrupt, url: source.url, "the store did not return object IDs for \(entity.name)")
            }
            sourceIDs += ids
        }
        let newIDs = try destination.newObjectIDs(forEntityNames: sourceIDs.map(\.entityName))
        guard newIDs.count == sourceIDs.count else {
            throw StoreError(.corrupt, url: destination.url, "the new store returned \(newIDs.count) IDs for \(sourceIDs.count) objects")
        }
        let mapping = Dictionary(uniqueKeysWithValues: zip(sourceIDs, newIDs))
        let total = sourceIDs.count
        progress?(StoreCopyProgress(completedObjects: 0, totalObjects: total))
        let wholeGraphAtOnce = destination is AtomicStore
        var pending = StoreChangeSet()
        var completed = 0
        for start in stride(from: 0, to: total, by: batchSize) {
            let batch = Array(sourceIDs[start..<min(start + batchSize, total)])
            let snapshots = try withToManyRelationships(try source.snapshots(for: batch))
            for snapshot in snapshots {
                pending.inserted.append(try translated(snapshot, mapping: mapping))
            }
            completed += batch.count
            if !wholeGraphAtOnce {
                try destination.save(pending)
                pending = StoreChangeSet()
                progress?(StoreCopyProgress(completedObjects: completed, totalObjects: total))
            }
        }
        if wholeGraphAtOnce {
            try destination.save(pending)
            progress?(StoreCopyProgress(completedObjects: total, totalObjects: total))
        }
        var metadata = destination.metadata
        metadata.userInfo = source.metadata.userInfo
        try destination.setMetadata(metadata)
    }

    /// The snapshots with every to-many relationship filled in: those the store left out are
    /// read for the whole batch at once, one request per relationship.
    private func withToManyRelationships(_ snapshots: [StoreSnapshot]) throws -> [StoreSnapshot] {
        var missing: [String: [ManagedObjectID]] = [:]
        for snapshot in snapshots {
            guard let entity = model.entitiesByName[snapshot.objectID.entityName] else { continue }
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                if snapshot.toMany(forKey: relationship.name) == nil { missing[relationship.name, default: []].append(snapshot.objectID) }
            }
        }
        guard !missing.isEmpty else { return snapshots }
        var members: [String: [ManagedObjectID: [ManagedObjectID]]] = [:]
        for (name, owners) in missing { members[name] = try source.objectIDs(forRelationship: name, ofObjects: owners) }
        return snapshots.map { snapshot in
            var complete = snapshot
            for (name, byOwner) in members where complete.toMany(forKey: name) == nil {
                complete.setToMany(byOwner[snapshot.objectID] ?? [], forKey: name)
            }
            return complete
        }
    }

    /// The snapshot with the destination's IDs.
    private func translated(_ snapshot: StoreSnapshot, mapping: [ManagedObjectID: ManagedObjectID]) throws -> StoreSnapshot {
        func map(_ id: ManagedObjectID) throws -> ManagedObjectID {
            guard let mapped = mapping[id] else {
                throw StoreError(.danglingReference, url: source.url, objectID: snapshot.objectID, "refers to \(id), which the store does not hold")
            }
            return mapped
        }
        guard let entity = model.entitiesByName[snapshot.objectID.entityName] else {
            throw StoreError(.unknownEntity, url: source.url, objectID: snapshot.objectID, "the model has no entity \(snapshot.objectID.entityName)")
        }
        let snapshot = snapshot.laidOut(as: entity)
        var copy = StoreSnapshot(objectID: try map(snapshot.objectID), version: 0, entity: entity, values: snapshot.values)
        for index in entity.layout.toOneIndexes {
            if case .objectID(let target) = snapshot[index] { copy.setValue(.objectID(try map(target)), at: index) }
        }
        for index in entity.layout.toManyIndexes where !entity.properties[index].isTransient {
            copy.setToMany(try (snapshot.toMany(at: index) ?? []).map(map), at: index)
        }
        return copy
    }
}
