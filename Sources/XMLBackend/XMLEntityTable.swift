import StoreCore

/// The model's entities and their stored properties as the XML store names them, for finding
/// what a file's bytes name without making a `String` per element, and for writing.
///
/// An object's `type` is its entity's name upper-cased, as Core Data writes it (`Post` → `POST`);
/// when two entities' names upper-case to the same text, both are written under their own names
/// instead. The reader accepts either form.
///
/// For example:
///
/// ```swift
/// let table = XMLEntityTable(model: model)
/// table.entityIndex(named: bytes)          // the entity whose type is "POST"
/// table.entities[0].typeName               // "POST"
/// ```
struct XMLEntityTable {
    struct Attribute {
        let name: String
        /// The attribute's index in the entity's properties: where its value sits in an object.
        let propertyIndex: Int
        let nameBytes: [UInt8]
        let kind: XMLAttributeKind
        /// The bytes of `kind`'s name, what a file usually says.
        let kindBytes: [UInt8]
        let description: AttributeDescription
    }

    struct Relationship {
        let name: String
        /// The relationship's index in the entity's properties.
        let propertyIndex: Int
        let nameBytes: [UInt8]
        let description: RelationshipDescription
        /// Whether it is a to-many relationship (read without touching ``description``).
        let isToMany: Bool
        /// `min/max` as Core Data writes it: `0/1` for an optional to-one, `1/1` for a required
        /// one; the model's counts for a to-many (`0/0`: no minimum, no maximum).
        let cardinality: String
    }

    /// A class, so that the reader passes one reference per object rather than copying every
    /// array and name it holds.
    final class Entity {
        let description: EntityDescription
        let typeName: String
        let typeBytes: [UInt8]
        let nameBytes: [UInt8]
        let attributes: [Attribute]
        let relationships: [Relationship]
        /// The upper-cased names of the destinations, by relationship.
        let destinationTypeNames: [String]

        init(
            description: EntityDescription, typeName: String, typeBytes: [UInt8], nameBytes: [UInt8], attributes: [Attribute],
            relationships: [Relationship], destinationTypeNames: [String]
        ) {
            self.description = description
            self.typeName = typeName
            self.typeBytes = typeBytes
            self.nameBytes = nameBytes
            self.attributes = attributes
            self.relationships = relationships
            self.destinationTypeNames = destinationTypeNames
        }

        /// The attribute `name` names; `hint` (the one after the previous, as files list them in
        /// model order) is tried first.
        func attributeIndex(named name: UnsafeBufferPointer<UInt8>, hint: Int) -> Int? {
            if hint < attributes.count, XMLBytes.equal(attributes[hint].nameBytes, name) { return hint }
            return attributes.firstIndex { XMLBytes.equal($0.nameBytes, name) }
        }

        func relationshipIndex(named name: UnsafeBufferPointer<UInt8>) -> Int? {
            relationships.firstIndex { XMLBytes.equal($0.nameBytes, name) }
        }
    }

    let entities: [Entity]
    let indexByName: [String: Int]
    /// The index of each of the model's entities, by identity: how the writer finds the entity a
    /// laid-out object belongs to without hashing its name.
    let indexByIdentity: [ObjectIdentifier: Int]

    init(model: ManagedObjectModel) {
        var typeNames: [String: String] = [:]
        let upperCounts = Dictionary(grouping: model.entities, by: { $0.name.uppercased() }).mapValues(\.count)
        for entity in model.entities {
            let upper = entity.name.uppercased()
            typeNames[entity.name] = upperCounts[upper] == 1 ? upper : entity.name
        }
        entities = model.entities.map { entity in
            let stored = entity.properties.enumerated().filter { !$1.isTransient }
            let attributes = stored.compactMap { index, property in (property as? AttributeDescription).map { (index, $0) } }
            let relationships = stored.compactMap { index, property in (property as? RelationshipDescription).map { (index, $0) } }
            return Entity(
                description: entity,
                typeName: typeNames[entity.name] ?? entity.name,
                typeBytes: Array((typeNames[entity.name] ?? entity.name).utf8),
                nameBytes: Array(entity.name.utf8),
                attributes: attributes.map { index, attribute in
                    Attribute(
                        name: attribute.name, propertyIndex: index, nameBytes: Array(attribute.name.utf8),
                        kind: XMLAttributeKind(attribute.attributeType), kindBytes: XMLAttributeKind(attribute.attributeType).nameBytes,
                        description: attribute)
                },
                relationships: relationships.map { index, relationship in
                    let cardinality = relationship.isToMany
                        ? "\(relationship.minCount)/\(relationship.maxCount)"
                        : "\(relationship.isOptional ? 0 : 1)/1"
                    return Relationship(
                        name: relationship.name, propertyIndex: index, nameBytes: Array(relationship.name.utf8), description: relationship,
                        isToMany: relationship.isToMany, cardinality: cardinality)
                },
                destinationTypeNames: relationships.map { typeNames[$1.destinationEntityName] ?? $1.destinationEntityName.uppercased() })
        }
        indexByName = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($1.description.name, $0) })
        indexByIdentity = Dictionary(uniqueKeysWithValues: entities.enumerated().map { (ObjectIdentifier($1.description), $0) })
    }

    /// The entity an object of a file belongs to: the one it is laid out by (`hint`, the
    /// previous object's, tried first), or the one its entity name names.
    func entityIndex(of object: AtomicStoreObject, hint: Int) -> Int? {
        if let identity = object.layoutIdentity {
            if hint < entities.count, ObjectIdentifier(entities[hint].description) == identity { return hint }
            if let index = indexByIdentity[identity] { return index }
        }
        return indexByName[object.entityName]
    }

    /// The entity a file's `type` names: its upper-cased name (what is written) or its own;
    /// `hint` (the previous object's) is tried first.
    func entityIndex(named type: UnsafeBufferPointer<UInt8>, hint: Int) -> Int? {
        if hint < entities.count, XMLBytes.equal(entities[hint].typeBytes, type) { return hint }
        if let written = entities.firstIndex(where: { XMLBytes.equal($0.typeBytes, type) }) { return written }
        return entities.firstIndex { XMLBytes.equal($0.nameBytes, type) }
    }
}
