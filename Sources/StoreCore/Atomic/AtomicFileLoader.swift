import Foundation

/// Turns the objects of an atomic store file into the engine's snapshots, checking each against
/// the model: known, concrete entities; positive, unique keys; known, stored properties (for
/// objects held by name); values of the attribute's type; to-one relationships holding at most
/// one object; and every reference naming an object of the file of the relationship's
/// destination entity.
///
/// A laid-out object's values array becomes its snapshot's (written in place: coerced values,
/// to-one keys turned into IDs), so loading costs no dictionary and no string per object. What
/// the checks need about each entity — its attributes' types and its relationships'
/// destinations, by property index — is worked out once per load.
///
/// For example:
///
/// ```swift
/// let loader = AtomicFileLoader(model: model, storeIdentifier: uuid, url: url)
/// let snapshots = try loader.snapshots(taking: &objects)
/// ```
struct AtomicFileLoader {
    let storeIdentifier: String
    let url: URL?
    private let entities: [EntityDescription]
    /// Each entity's name and whether it is abstract, read without touching the entity.
    private let names: [String]
    private let isAbstract: [Bool]
    private let indexByName: [String: Int]
    private let indexByIdentity: [ObjectIdentifier: Int]
    private let identities: [ObjectIdentifier]
    /// `isKind[a][b]`: whether entity `a` is entity `b` or one of its sub-entities.
    private let isKind: [[Bool]]
    /// For each entity, its stored attributes: index and type.
    private let attributeSlots: [[AttributeSlot]]
    /// For each entity, its stored to-one relationships.
    private let toOneIndexes: [[Int]]
    /// For each entity, the properties it stores no value for (transient ones, to-manys, whose
    /// lists are held apart): a laid-out object's slot there must be empty.
    private let unstoredIndexes: [[Int]]
    /// For each entity, the destination entity's index by property index (-1 where none).
    private let destinations: [[Int]]

    private struct AttributeSlot {
        let index: Int
        let type: AttributeType
    }

    /// An object of the file: its ID and its entity's index.
    private struct KnownObject {
        let id: ManagedObjectID
        let entityIndex: Int
    }

    /// The file's objects by key, for following references.
    private struct KnownObjects {
        let keys: KeyIndex
        let ids: [ManagedObjectID]
        let entityIndexes: [Int]

        subscript(key: Int64) -> KnownObject? {
            keys.position(of: key).map { KnownObject(id: ids[$0], entityIndex: entityIndexes[$0]) }
        }
    }

    init(model: ManagedObjectModel, storeIdentifier: String, url: URL?) {
        self.storeIdentifier = storeIdentifier
        self.url = url
        let entities = model.entities
        let indexByName = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.entities = entities
        names = entities.map(\.name)
        isAbstract = entities.map(\.isAbstract)
        self.indexByName = indexByName
        identities = entities.map(ObjectIdentifier.init)
        indexByIdentity = Dictionary(entities.enumerated().map { (ObjectIdentifier($1), $0) }, uniquingKeysWith: { first, _ in first })
        isKind = entities.map { entity in entities.map { entity.isKind(of: $0) } }
        attributeSlots = entities.map { entity in
            entity.properties.indices.compactMap { index in
                guard entity.layout.kinds[index] == .attribute, let attribute = entity.properties[index] as? AttributeDescription else { return nil }
                return AttributeSlot(index: index, type: attribute.attributeType)
            }
        }
        toOneIndexes = entities.map { entity in entity.layout.toOneIndexes.filter { !entity.properties[$0].isTransient } }
        unstoredIndexes = entities.map { entity in
            entity.properties.indices.filter { index in
                entity.layout.kinds[index] != .attribute && (entity.layout.kinds[index] != .toOne || entity.properties[index].isTransient)
            }
        }
        destinations = entities.map { entity in
            entity.properties.map { property in
                (property as? RelationshipDescription).flatMap { indexByName[$0.destinationEntityName] } ?? -1
            }
        }
    }

    /// The snapshots of `objects`, entity by entity (each list in the file's order), taking each
    /// object's values (so a uniquely held values array becomes the snapshot's without a copy);
    /// `objects` is left empty.
    ///
    /// - Throws: ``StoreError`` — `unknownEntity`, `unknownProperty`,
    ///   `danglingReference` or `corrupt` — naming the object and key.
    func tables(taking objects: inout [AtomicStoreObject]) throws(StoreError) -> [SnapshotGraph.LoadedTable] {
        var entityIndexes: [Int] = []
        var objectIDs: [ManagedObjectID] = []
        entityIndexes.reserveCapacity(objects.count)
        objectIDs.reserveCapacity(objects.count)
        var keys = KeyIndex(objects)
        var prototypes: [ManagedObjectID?] = Array(repeating: nil, count: entities.count)
        var counts = Array(repeating: 0, count: entities.count)
        var hint = 0
        // Through a buffer pointer: each object is read in place (an array's element would be
        // copied, retaining its entity).
        try objects.withUnsafeBufferPointer { (objects) throws(StoreError) in
            for position in objects.indices {
                let key = objects[position].primaryKey
                let index = try entityIndex(of: objects[position], hint: hint)
                hint = index
                guard !isAbstract[index] else {
                    throw StoreError(.corrupt, url: url, "object \(key) is a '\(names[index])', an abstract entity, which cannot have objects")
                }
                guard key > 0 else {
                    throw StoreError(.corrupt, url: url, "object \(key) (\(names[index])) has a key that is not positive")
                }
                guard keys.insert(key, at: position) else {
                    throw StoreError(.corrupt, url: url, "two objects have the key \(key)")
                }
                let id: ManagedObjectID
                if let prototype = prototypes[index] {
                    id = ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: prototype)
                } else {
                    id = ManagedObjectID(entityName: names[index], storeIdentifier: storeIdentifier, primaryKey: key)
                    prototypes[index] = id
                }
                entityIndexes.append(index)
                objectIDs.append(id)
                counts[index] += 1
            }
        }
        let known = KnownObjects(keys: keys, ids: objectIDs, entityIndexes: entityIndexes)
        var tables = zip(names, counts).map { name, count in
            var table = SnapshotGraph.LoadedTable(entityName: name)
            table.rows.reserveCapacity(count)
            table.ids.reserveCapacity(count)
            return table
        }
        for position in objects.indices {
            var object = AtomicStoreObject.taken
            swap(&object, &objects[position])
            let index = entityIndexes[position]
            tables[index].rows.append(try snapshot(of: object, id: objectIDs[position], entityIndex: index, known: known))
            tables[index].ids.append(objectIDs[position])
        }
        objects = []
        return tables
    }

    /// The index of the object's entity: the one it is laid out by, or the one its name names.
    private func entityIndex(of object: AtomicStoreObject, hint: Int) throws(StoreError) -> Int {
        if let identity = object.layoutIdentity {
            if hint < identities.count, identities[hint] == identity { return hint }
            if let index = indexByIdentity[identity] { return index }
        }
        let name = object.entityName
        guard let index = indexByName[name] else {
            throw StoreError(.unknownEntity, url: url, "object \(object.primaryKey) is a '\(name)', an entity the model does not have")
        }
        return index
    }

    private func snapshot(
        of object: consuming AtomicStoreObject, id: ManagedObjectID, entityIndex: Int, known: KnownObjects
    ) throws(StoreError) -> StoreSnapshot {
        let key = object.primaryKey
        func problem(_ code: StoreError.Code, _ property: String, _ text: String) -> StoreError {
            StoreError(code, url: url, objectID: id, "object \(key) (\(names[entityIndex])), '\(property)': \(text)")
        }
        if !object.isLaidOut(by: entities[entityIndex]) {
            object = try object.laidOut(as: entities[entityIndex], problem: problem)
        }
        // The object's own reference to the entity moves into the snapshot: retaining an entity
        // is not cheap (its properties refer to it weakly, so its count lives in a side table).
        let entity = object.modelEntity.take() ?? entities[entityIndex]
        func target(_ targetKey: Int64, at index: Int) throws(StoreError) -> ManagedObjectID {
            let destination = destinations[entityIndex][index]
            guard let target = known[targetKey] else {
                throw problem(.danglingReference, entity.properties[index].name, "refers to object \(targetKey), which the file does not have")
            }
            guard destination >= 0, isKind[target.entityIndex][destination] else {
                throw problem(
                    .danglingReference, entity.properties[index].name,
                    "refers to object \(targetKey), a \(target.id.entityName), not a \((entity.properties[index] as? RelationshipDescription)?.destinationEntityName ?? "")")
            }
            return target.id
        }
        var values = object.values
        object.values = StoreValues()
        for slot in attributeSlots[entityIndex] {
            let value = values[slot.index]
            guard !value.isNull, !slot.type.holdsOwnKind(value) else { continue }
            guard let coerced = slot.type.coerce(value) else {
                throw problem(.corrupt, entity.properties[slot.index].name, "a \(value.kindName) value where the model has a \(slot.type.name) attribute")
            }
            values[slot.index] = coerced
        }
        for index in toOneIndexes[entityIndex] where !values[index].isNull {
            guard let targetKey = AtomicStoreObject.key(in: values[index]) else {
                throw problem(
                    .unknownProperty, entity.properties[index].name,
                    "the model's \(entity.name) has no stored attribute of this name (it is a to-one relationship, whose slot holds a key)")
            }
            values[index] = .objectID(try target(targetKey, at: index))
        }
        for index in unstoredIndexes[entityIndex] where !values[index].isNull {
            // A transient relationship's key is dropped, as when given by name; anything else is
            // a value for a name the entity stores none for.
            if entity.layout.kinds[index] == .toOne, AtomicStoreObject.key(in: values[index]) != nil {
                values[index] = .null
                continue
            }
            throw problem(.unknownProperty, entity.properties[index].name, "the model's \(entity.name) has no stored attribute of this name")
        }
        let lists = object.toManyLists
        var snapshot = StoreSnapshot(objectID: id, version: 1, entity: entity, values: values)
        for list in lists {
            var targets: [ManagedObjectID] = []
            targets.reserveCapacity(list.keys.count)
            for targetKey in list.keys { targets.append(try target(targetKey, at: list.index)) }
            snapshot.setToMany(targets, at: list.index)
        }
        return snapshot
    }
}

extension AttributeType {
    /// Whether `value` is of the kind this type stores as it is (what the XML reader and most
    /// formats produce), so the load need not coerce it.
    fileprivate func holdsOwnKind(_ value: StoreValue) -> Bool {
        switch (self, value) {
        case (.integer64, .integer), (.double, .double), (.float, .float), (.decimal, .decimal), (.string, .string),
            (.boolean, .boolean), (.date, .date), (.binaryData, .data), (.transformable, .data), (.uuid, .uuid), (.uri, .uri),
            (.objectID, .objectID):
            true
        default:
            false
        }
    }
}
