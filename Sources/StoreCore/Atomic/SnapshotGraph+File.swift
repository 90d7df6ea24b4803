import Foundation

extension SnapshotGraph {
    /// The graph an atomic store file describes, with every object checked against the model:
    /// known, concrete entities; known, stored properties; values of the attribute's type; to-one
    /// relationships holding at most one object; and every reference naming an object of the file
    /// of the relationship's destination entity.
    ///
    /// - Throws: ``StoreError`` — ``ErrorCode/unknownEntity``, ``ErrorCode/unknownProperty``,
    ///   ``ErrorCode/danglingReference`` or ``ErrorCode/corrupt`` — naming the object and key.
    package init(file: AtomicStoreFile, model: ManagedObjectModel, storeIdentifier: String, url: URL?) throws(StoreError) {
        self.init(model: model)
        let kinds = EntityKinds(model)
        var ids: [Int64: KnownObject] = [:]
        ids.reserveCapacity(file.objects.count)
        var prototypes: [ManagedObjectID?] = Array(repeating: nil, count: kinds.entities.count)
        for object in file.objects {
            guard let index = kinds.index[object.entityName] else {
                throw StoreError(.unknownEntity, url: url, "object \(object.primaryKey) is a '\(object.entityName)', an entity the model does not have")
            }
            let entity = kinds.entities[index]
            guard !entity.isAbstract else {
                throw StoreError(.corrupt, url: url, "object \(object.primaryKey) is a '\(entity.name)', an abstract entity, which cannot have objects")
            }
            guard object.primaryKey > 0 else {
                throw StoreError(.corrupt, url: url, "object \(object.primaryKey) (\(entity.name)) has a key that is not positive")
            }
            let id: ManagedObjectID
            if let prototype = prototypes[index] {
                id = ManagedObjectID(primaryKey: object.primaryKey, sameEntityAndStoreAs: prototype)
            } else {
                id = ManagedObjectID(entityName: entity.name, storeIdentifier: storeIdentifier, primaryKey: object.primaryKey)
                prototypes[index] = id
            }
            guard ids.updateValue(KnownObject(id: id, entityIndex: index), forKey: object.primaryKey) == nil else {
                throw StoreError(.corrupt, url: url, "two objects have the key \(object.primaryKey)")
            }
        }
        var snapshots: [StoreSnapshot] = []
        snapshots.reserveCapacity(file.objects.count)
        for object in file.objects {
            guard let known = ids[object.primaryKey] else { continue }
            snapshots.append(try Self.snapshot(of: object, known: known, kinds: kinds, ids: ids, url: url))
        }
        loadUnique(snapshots)
    }

    /// An object of the file: its ID and the index of its entity in ``EntityKinds``.
    private struct KnownObject {
        let id: ManagedObjectID
        let entityIndex: Int
    }

    /// The model's entities by index, and for each, which entities are kinds of it — so that
    /// checking a reference's destination costs an array lookup, not a walk up the hierarchy.
    private struct EntityKinds {
        let entities: [EntityDescription]
        let index: [String: Int]
        /// `isKind[a][b]`: whether entity `a` is entity `b` or one of its sub-entities.
        let isKind: [[Bool]]

        init(_ model: ManagedObjectModel) {
            entities = model.entities
            index = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($1.name, $0) })
            isKind = entities.map { entity in model.entities.map { entity.isKind(of: $0) } }
        }
    }

    private static func snapshot(
        of object: AtomicStoreObject, known: KnownObject, kinds: EntityKinds, ids: [Int64: KnownObject], url: URL?
    ) throws(StoreError) -> StoreSnapshot {
        let entity = kinds.entities[known.entityIndex]
        func problem(_ code: StoreError.Code, _ key: String, _ text: String) -> StoreError {
            StoreError(code, url: url, objectID: known.id, "object \(object.primaryKey) (\(entity.name)), '\(key)': \(text)")
        }
        var snapshot = StoreSnapshot(objectID: known.id, version: 1, entity: entity)
        for (key, value) in object.attributes where !value.isNull {
            guard let index = entity.propertyIndexes[key], entity.layout.kinds[index] == .attribute,
                let attribute = entity.properties[index] as? AttributeDescription
            else {
                throw problem(.unknownProperty, key, "the model's \(entity.name) has no stored attribute of this name")
            }
            guard let coerced = attribute.attributeType.coerce(value) else {
                throw problem(.corrupt, key, "a \(value.kindName) value where the model has a \(attribute.attributeType.name) attribute")
            }
            snapshot.setValue(coerced, at: index)
        }
        for index in entity.layout.toOneIndexes + entity.layout.toManyIndexes {
            guard let relationship = entity.properties[index] as? RelationshipDescription, !relationship.isTransient else { continue }
            let keys = object.relationships[relationship.name] ?? []
            if !relationship.isToMany && keys.count > 1 {
                throw problem(.corrupt, relationship.name, "a to-one relationship holding \(keys.count) objects")
            }
            let destination = kinds.index[relationship.destinationEntityName] ?? -1
            var targets: [ManagedObjectID] = []
            targets.reserveCapacity(keys.count)
            for key in keys {
                guard let target = ids[key] else {
                    throw problem(.danglingReference, relationship.name, "refers to object \(key), which the file does not have")
                }
                guard destination >= 0, kinds.isKind[target.entityIndex][destination] else {
                    throw problem(.danglingReference, relationship.name, "refers to object \(key), a \(target.id.entityName), not a \(relationship.destinationEntityName)")
                }
                targets.append(target.id)
            }
            if relationship.isToMany {
                snapshot.setToMany(targets, at: index)
            } else if let target = targets.first {
                snapshot.setValue(.objectID(target), at: index)
            }
        }
        if object.relationships.count > 0 {
            for key in object.relationships.keys where entity.relationshipsByName[key] == nil {
                throw problem(.unknownProperty, key, "the model's \(entity.name) has no relationship of this name")
            }
        }
        return snapshot
    }

    /// The file that describes this graph, objects in key order.
    package func file(metadata: StoreMetadata, nextPrimaryKey: Int64) -> AtomicStoreFile {
        var objects: [AtomicStoreObject] = []
        objects.reserveCapacity(count)
        for snapshot in allSnapshots {
            guard let key = snapshot.objectID.primaryKey else { continue }
            let entity = snapshot.entity
            var object = AtomicStoreObject(entityName: entity.name, primaryKey: key)
            object.attributes.reserveCapacity(entity.layout.count)
            for (index, value) in snapshot.heldValues where !value.isNull {
                let name = entity.properties[index].name
                if entity.layout.kinds[index] == .toOne, case .objectID(let target) = value, let targetKey = target.primaryKey {
                    object.relationships[name] = [targetKey]
                } else {
                    object.attributes[name] = value
                }
            }
            for (index, targets) in snapshot.toManyRelationships where !targets.isEmpty {
                object.relationships[entity.properties[index].name] = targets.compactMap(\.primaryKey)
            }
            objects.append(object)
        }
        objects.sort { $0.primaryKey < $1.primaryKey }
        return AtomicStoreFile(metadata: metadata, nextPrimaryKey: nextPrimaryKey, objects: objects)
    }
}
