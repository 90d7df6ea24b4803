import Foundation

extension ManagedObjectModel {
    /// The entity version hashes Apple's Core Data computes for this model — the
    /// `NSStoreModelVersionHashes` it records in every store's metadata — by entity name.
    ///
    /// Reproduced from the model alone and checked against the stores Core Data wrote in the
    /// test fixtures (docs/model-files.md describes the encoding). Derived attributes hash their
    /// expression as written in the model, which may differ from Core Data's normalized
    /// `predicateFormat`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let matches = model.coreDataEntityVersionHashesByName == store.metadata.modelVersionHashes
    /// ```
    public var coreDataEntityVersionHashesByName: [String: Data] {
        var hashes: [String: Data] = [:]
        for entity in entities { hashes[entity.name] = CoreDataVersionHash.entity(entity, cache: &hashes) }
        return hashes
    }
}

/// Core Data's version-hash encoding (SHA-256 throughout; integers little-endian):
///
/// - property: name, then a 16-bit flag word (1 optional, 2 transient, 4 read-only), then the
///   version hash modifier if any;
/// - attribute: the property hash, the 32-bit `NSAttributeType` number, then a `1` byte for
///   external binary storage and another for preserve-value-on-deletion when set (a derived
///   attribute: that hash followed by its derivation expression, hashed again);
/// - relationship: the property hash, the destination entity's name, the inverse's name (unless
///   the relationship is its own inverse), 32-bit max and min counts, then a 16-bit `1` if ordered;
/// - composite attribute: hashed as an attribute of type 2100 (whether Core Data also hashes the
///   elements could not be checked: no Apple-written store with a composite was at hand);
/// - entity: name, a byte for abstract, the parent entity's hash, the hashes of its stored
///   (non-transient) attributes and relationships — inherited ones included — in name order,
///   its version hash modifier, then each uniqueness constraint's keys joined by "." in sorted order.
enum CoreDataVersionHash {
    static func entity(_ entity: EntityDescription, cache: inout [String: Data]) -> Data {
        if let known = cache[entity.name] { return known }
        var bytes = Data(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.superentity {
            let parentHash = Self.entity(parent, cache: &cache)
            cache[parent.name] = parentHash
            bytes.append(parentHash)
        }
        // A composite is hashed as one attribute (its elements, named by key path, are not).
        let properties = entity.properties.filter { !$0.isTransient && !$0.name.contains(".") }
            + entity.compositeAttributesByName.values.map { $0 as PropertyDescription }
        for property in properties.sorted(by: { $0.name < $1.name }) {
            if let attribute = property as? AttributeDescription {
                bytes.append(Self.attribute(attribute))
            } else if let relationship = property as? RelationshipDescription {
                bytes.append(Self.relationship(relationship))
            }
        }
        if let modifier = entity.versionHashModifier { bytes.append(Data(modifier.utf8)) }
        for constraint in entity.uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted() where !constraint.isEmpty {
            bytes.append(Data(constraint.utf8))
        }
        return SHA256.hash(bytes)
    }

    private static func property(_ property: PropertyDescription) -> Data {
        var bytes = Data(property.name.utf8)
        let flags: UInt16 = (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0)
        append(flags, to: &bytes)
        if let modifier = property.versionHashModifier { bytes.append(Data(modifier.utf8)) }
        return SHA256.hash(bytes)
    }

    private static func attribute(_ attribute: AttributeDescription) -> Data {
        var bytes = property(attribute)
        append(typeNumber(attribute.attributeType), to: &bytes)
        if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
        let hash = SHA256.hash(bytes)
        // A derived attribute hashes its attribute hash again with the expression.
        guard let derivation = attribute.derivationExpression else { return hash }
        return SHA256.hash(hash + Data(derivation.utf8))
    }

    private static func relationship(_ relationship: RelationshipDescription) -> Data {
        var bytes = property(relationship)
        bytes.append(Data(relationship.destinationEntityName.utf8))
        if let inverse = relationship.inverseName,
            !(inverse == relationship.name && relationship.destinationEntityName == relationship.entity?.name)
        {
            bytes.append(Data(inverse.utf8))
        }
        append(UInt32(truncatingIfNeeded: relationship.maxCount), to: &bytes)
        append(UInt32(truncatingIfNeeded: relationship.minCount), to: &bytes)
        if relationship.isOrdered { append(UInt16(1), to: &bytes) }
        return SHA256.hash(bytes)
    }

    /// `NSAttributeType`'s raw value.
    private static func typeNumber(_ type: AttributeType) -> UInt32 {
        switch type {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binaryData: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .undefined: 0
        case .composite: 2100
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
