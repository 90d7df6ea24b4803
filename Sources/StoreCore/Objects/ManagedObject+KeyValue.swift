import Foundation

/// Access by key, for code that works with any entity (Core Data's key-value coding).
extension ManagedObject {
    /// The value of a property: an attribute's Swift value (`String`, `Int64`, `Double`, `Date`…,
    /// transformable values decoded), a to-one destination, a to-many `Set<ManagedObject>` or an
    /// ordered `[ManagedObject]`; `nil` for a missing value. A composite attribute's value is a
    /// `[String: Any]` of its elements' values by name (`nil` when every element is `nil`); an
    /// element is read by its key path (`value(forKey: "location.latitude")`).
    ///
    /// - Throws: ``ModelError`` for an unknown key; ``StoreError`` when a fault cannot be loaded;
    ///   ``ObjectValidationError`` when a transformable value cannot be decoded.
    public func value(forKey key: String) throws -> Any? {
        if let composite = entity.compositeAttributesByName[key] { return try compositeValue(composite, keyPath: key) }
        let index = try slotIndex(forKey: key)
        willAccess()
        if let failure = state.faultFailure { throw failure }
        switch entity.properties[index] {
        case let attribute as AttributeDescription:
            let value = attributeValue(at: index)
            if let name = attribute.valueTransformerName, case .data(let data) = value {
                let decoded: Any = try Self.transformer(named: name, for: attribute, of: entity) { try $0.decode(data) }
                return decoded
            }
            return value.anyValue
        case let relationship as RelationshipDescription:
            if !relationship.isToMany { return toOneObject(at: index) }
            let objects = try loadedToMany(at: index).objects
            return relationship.isOrdered ? objects as Any : Set(objects) as Any
        default:
            return nil
        }
    }

    /// Sets a property from a Swift value. Attributes accept values of their type (integers
    /// are range-checked, numbers widen, `nil` clears); relationships accept a managed object
    /// (to-one) or a set or array of them (to-many). Inverses are updated at once. A composite
    /// attribute takes a `[String: Any]` by element name (an element left out becomes `nil`,
    /// as does every element for `nil`); an element is set by its key path.
    ///
    /// - Throws: ``ModelError`` for an unknown key; ``ObjectValidationError`` (code `wrongType`) for a
    ///   value of the wrong type — the object is left unchanged.
    public func setValue(_ value: Any?, forKey key: String) throws {
        if let composite = entity.compositeAttributesByName[key] {
            var values: [(index: Int, value: StoreValue)] = []
            try collectCompositeValues(value, of: composite, keyPath: key, into: &values)
            for (index, value) in values { setAttributeValue(value, at: index) }
            return
        }
        let index = try slotIndex(forKey: key)
        switch entity.properties[index] {
        case let attribute as AttributeDescription:
            setAttributeValue(try storeValue(from: value, for: attribute), at: index)
        case let relationship as RelationshipDescription:
            if relationship.isToMany {
                let objects: [ManagedObject]
                switch value {
                case nil: objects = []
                case let array as [ManagedObject]: objects = array
                case let set as Set<ManagedObject>: objects = Array(set)
                default: throw wrongType(relationship.name, "a set or array of managed objects", value)
                }
                for object in objects { try checkDestination(object, of: relationship) }
                setToMany(objects, at: index)
            } else {
                let object = value.flatMap { $0 as? ManagedObject }
                if value != nil, object == nil { throw wrongType(relationship.name, "a managed object", value) }
                if let object { try checkDestination(object, of: relationship) }
                setToOne(object, at: index)
            }
        default:
            break
        }
    }

    /// An attribute's value (to-one relationships: the destination's ID) as a ``StoreValue``.
    public func storeValue(forKey key: String) throws -> StoreValue {
        let index = try slotIndex(forKey: key)
        willAccess()
        if let failure = state.faultFailure { throw failure }
        if let relationship = entity.properties[index] as? RelationshipDescription {
            guard !relationship.isToMany else { throw wrongType(key, "an attribute or to-one relationship", nil) }
            return toOneObject(at: index).map { .objectID($0.objectID) } ?? .null
        }
        return attributeValue(at: index)
    }

    /// Sets an attribute from a ``StoreValue`` (converted to the attribute's type).
    public func setStoreValue(_ value: StoreValue, forKey key: String) throws {
        let index = try slotIndex(forKey: key)
        guard let attribute = entity.properties[index] as? AttributeDescription else {
            throw wrongType(key, "an attribute", value.anyValue)
        }
        guard let coerced = attribute.attributeType.coerce(value) else {
            throw wrongType(key, "a \(attribute.attributeType.name) value", value.anyValue)
        }
        setAttributeValue(coerced, at: index)
    }

    /// Adds an object to a to-many relationship (and sets its inverse).
    public func add(_ object: ManagedObject, toRelationship key: String) throws {
        let (index, relationship) = try toManyRelationship(key)
        try checkDestination(object, of: relationship)
        addToToMany(object, at: index, inverse: relationship.inverseRelationship)
    }

    /// Removes an object from a to-many relationship (and clears its inverse).
    public func remove(_ object: ManagedObject, fromRelationship key: String) throws {
        let (index, relationship) = try toManyRelationship(key)
        removeFromToMany(object, at: index, inverse: relationship.inverseRelationship)
    }

    /// The values changed since the last save (or since insertion), by key.
    public func changedValues() -> [String: Any] {
        willAccess()
        var result: [String: Any] = [:]
        for index in changedProperties {
            let property = entity.properties[index]
            let current = (try? value(forKey: property.name)) ?? nil
            if entity.layout.kinds[index] == .attribute, let committed = committedValue(at: index), committed == values[index] {
                continue
            }
            result[property.name] = current ?? NSNull()
        }
        return result
    }

    /// The last saved values of the given keys (every stored key for `nil`); empty for an
    /// object that was never saved. To-one values are object IDs, to-many values arrays of IDs.
    /// A value the store cannot read is left out (this method reads only; nothing is written back).
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        willAccess()
        guard let snapshot = committedSnapshot ?? (try? managedObjectContext?.savedSnapshot(of: self))?.laidOut(as: entity) else { return [:] }
        var result: [String: Any] = [:]
        for (index, property) in entity.properties.enumerated() where !property.isTransient && (keys?.contains(property.name) ?? true) {
            if let ids = snapshot.toMany(at: index) {
                result[property.name] = ids
            } else if let relationship = property as? RelationshipDescription, relationship.isToMany {
                if let ids = try? managedObjectContext?.loadToMany(relationship, of: self) { result[property.name] = ids }
            } else {
                result[property.name] = snapshot[index].anyValue ?? NSNull()
            }
        }
        return result
    }

    // MARK: Helpers

    private func compositeValue(_ composite: CompositeAttributeDescription, keyPath: String) throws -> [String: Any]? {
        var result: [String: Any] = [:]
        for element in composite.elements {
            let path = "\(keyPath).\(element.name)"
            let value = try (element as? CompositeAttributeDescription).map { try compositeValue($0, keyPath: path) as Any? }
                ?? value(forKey: path)
            if let value { result[element.name] = value }
        }
        return result.isEmpty ? nil : result
    }

    /// Every element's new value, checked before anything is set: a key the composite does not
    /// have, or a value of the wrong type, throws and leaves the object unchanged.
    private func collectCompositeValues(
        _ value: Any?, of composite: CompositeAttributeDescription, keyPath: String,
        into values: inout [(index: Int, value: StoreValue)]
    ) throws {
        let dictionary: [String: Any]
        switch value {
        case nil, is NSNull: dictionary = [:]
        case let given as [String: Any]: dictionary = given
        default: throw wrongType(keyPath, "a [String: Any] of the composite's elements", value)
        }
        let names = Set(composite.elements.map(\.name))
        if let unknown = dictionary.keys.sorted().first(where: { !names.contains($0) }) {
            throw ObjectValidationError(.wrongType, objectID: objectID, entity: entity.name, key: keyPath, "the composite \(keyPath) has no element '\(unknown)'")
        }
        for element in composite.elements {
            let path = "\(keyPath).\(element.name)"
            if let nested = element as? CompositeAttributeDescription {
                try collectCompositeValues(dictionary[element.name], of: nested, keyPath: path, into: &values)
            } else if let index = entity.propertyIndexes[path], let attribute = entity.properties[index] as? AttributeDescription {
                values.append((index, try storeValue(from: dictionary[element.name], for: attribute)))
            }
        }
    }

    func storeValue(from value: Any?, for attribute: AttributeDescription) throws -> StoreValue {
        if let name = attribute.valueTransformerName {
            guard let value, !(value is NSNull) else { return .null }
            if let storeValue = value as? StoreValue { return storeValue }
            if let optional = value as? any StoreValueConvertible, optional.storeValue.isNull { return .null }
            return .data(try Self.transformer(named: name, for: attribute, of: entity) { try $0.encode(value) })
        }
        // The common Swift types first, as they are (the cases below make the runtime search).
        if let plain = value.flatMap(StoreValue.init(plainSwiftValue:)), let coerced = attribute.attributeType.coerce(plain) { return coerced }
        let raw: StoreValue
        switch value {
        case nil, is NSNull: raw = .null
        case let convertible as any StoreValueConvertible: raw = convertible.storeValue
        case let object as ManagedObject: raw = .objectID(object.objectID)
        default: throw wrongType(attribute.name, "a \(attribute.attributeType.name) value", value)
        }
        guard let coerced = attribute.attributeType.coerce(raw) else {
            throw wrongType(attribute.name, "a \(attribute.attributeType.name) value", value)
        }
        return coerced
    }

    /// Runs `body` with the transformer registered under `name`. Without one, Core Data's default
    /// transformer (``KeyedArchiveTransformer``) stands in, with a warning logged once, as Core
    /// Data logs "no NSValueTransformer with class name … was found" and uses its default; what
    /// the default cannot archive or unarchive is then `unknownTransformer`.
    static func transformer<T>(
        named name: String, for attribute: AttributeDescription, of entity: EntityDescription,
        _ body: (any AttributeValueTransformer) throws -> T
    ) throws -> T {
        guard let transformer = AttributeValueTransformers.transformer(named: name) else {
            TransformerLog.noteFallback(name: name, entity: entity.name, key: attribute.name)
            do {
                return try body(KeyedArchiveTransformer())
            } catch {
                throw ModelError(.unknownTransformer, entity: entity.name, key: attribute.name, "no transformer is registered under the name '\(name)', and Core Data's default transformer, used in its place, refused the value: \(error); register it with AttributeValueTransformers.register")
            }
        }
        do {
            return try body(transformer)
        } catch {
            throw ObjectValidationError(.wrongType, entity: entity.name, key: attribute.name, "transformer '\(name)' refused the value: \(error)", underlyingError: error)
        }
    }

    private func toManyRelationship(_ key: String) throws -> (Int, RelationshipDescription) {
        let index = try slotIndex(forKey: key)
        guard let relationship = entity.properties[index] as? RelationshipDescription, relationship.isToMany else {
            throw wrongType(key, "a to-many relationship", nil)
        }
        return (index, relationship)
    }

    private func checkDestination(_ object: ManagedObject, of relationship: RelationshipDescription) throws {
        guard let destination = relationship.destinationEntity, object.entity.isKind(of: destination) else {
            throw ObjectValidationError(.wrongType, objectID: objectID, entity: entity.name, key: relationship.name, "expected a \(relationship.destinationEntityName) object, got a \(object.entity.name)")
        }
        if let mine = managedObjectContext, let theirs = object.managedObjectContext, mine !== theirs {
            throw ObjectValidationError(.wrongType, objectID: objectID, entity: entity.name, key: relationship.name, "cannot relate objects that belong to different contexts")
        }
    }

    private func wrongType(_ key: String, _ expected: String, _ value: Any?) -> ObjectValidationError {
        let given = value.map { "\(type(of: $0))" } ?? "nil"
        return ObjectValidationError(.wrongType, objectID: objectID, entity: entity.name, key: key, "expected \(expected), got \(given)")
    }
}

extension ManagedObject {
    /// Whether a relationship's destination has not been loaded yet (a to-many known only to
    /// the store, or a to-one known only by ID). Reading it loads it.
    ///
    /// For example:
    ///
    /// ```swift
    /// post.hasFault(forRelationshipNamed: "comments")   // true after a fetch
    /// _ = post.comments
    /// post.hasFault(forRelationshipNamed: "comments")   // false
    /// ```
    public func hasFault(forRelationshipNamed name: String) -> Bool {
        guard let index = entity.propertyIndexes[name], entity.properties[index] is RelationshipDescription else { return false }
        if isFault { return true }
        switch relations[index] {
        case .toManyFault, .toManyIDs: return true
        case .unresolved: return !values[index].isNull
        case .toOne(let object): return object?.isFault ?? false
        case .toMany: return false
        }
    }
}
