/// The by-name view of an ``AtomicStoreObject``: for your own formats, tests and debugging.
/// Built-in formats and the engine use the layout; names are converted at these edges only.
extension AtomicStoreObject {
    /// An object given by names, held by name until the engine resolves it against the model
    /// when the store is loaded (refusing unknown entities and properties then, as for any file).
    /// `nil` attributes and empty relationships may be left out.
    ///
    /// For example:
    ///
    /// ```swift
    /// AtomicStoreObject(entityName: "Post", primaryKey: 7, attributes: ["title": "Hello"], relationships: ["author": [3]])
    /// ```
    public init(entityName: String, primaryKey: Int64, attributes: [String: StoreValue] = [:], relationships: [String: [Int64]] = [:]) {
        self.primaryKey = primaryKey
        self.modelEntity = nil
        self.named = NamedContents(entityName: entityName, attributes: attributes, relationships: relationships)
        self.values = StoreValues()
        self.toManyLists = []
    }

    /// An object of `entity` given by names, laid out at once: the names are checked against the
    /// entity now (values are checked against their attributes' types when the store is loaded).
    ///
    /// For example:
    ///
    /// ```swift
    /// let post = try AtomicStoreObject(entity: postEntity, primaryKey: 7, attributes: ["title": "Hello"], relationships: ["author": [3]])
    /// post.entity === postEntity                      // true: laid out
    /// ```
    ///
    /// - Throws: ``StoreError`` — `unknownProperty` for a name `entity` does not have
    ///   as a stored attribute (among `attributes`) or as a relationship (among `relationships`);
    ///   `corrupt` for a to-one relationship given several keys. The same errors the
    ///   engine gives for such a file.
    public init(entity: EntityDescription, primaryKey: Int64, attributes: [String: StoreValue], relationships: [String: [Int64]] = [:]) throws(StoreError) {
        let named = AtomicStoreObject(entityName: entity.name, primaryKey: primaryKey, attributes: attributes, relationships: relationships)
        self = try named.laidOut(as: entity) { code, key, text in
            StoreError(code, "object \(primaryKey) (\(entity.name)), '\(key)': \(text)")
        }
    }

    /// The name of the object's entity. Setting another name holds the object by name, to be
    /// resolved against the model by the engine.
    public var entityName: String {
        get { named?.entityName ?? modelEntity?.name ?? "" }
        set {
            guard newValue != entityName else { return }
            holdByName()
            replaceNamed(entityName: newValue)
            modelEntity = nil
        }
    }

    /// The attribute values by name (without `nil`s for a laid-out object; as given for one
    /// built by name). Setting names the entity has as stored attributes keeps the object laid
    /// out; any other name holds it by name, and the engine refuses that name when loading.
    public var attributes: [String: StoreValue] {
        get { named?.attributes ?? layoutAttributesByName }
        set {
            if named == nil, let entity = modelEntity, let indexes = Self.attributeIndexes(of: newValue, in: entity) {
                for (index, kind) in entity.layout.kinds.enumerated() where kind == .attribute { values[index] = .null }
                for (index, value) in indexes { values[index] = value }
            } else {
                holdByName()
                replaceNamed(attributes: newValue)
            }
        }
    }

    /// The keys each relationship holds, by name (without empty ones for a laid-out object; as
    /// given for one built by name). Setting names the entity has as relationships (at most one
    /// key for a to-one) keeps the object laid out; anything else holds it by name, and the
    /// engine refuses it when loading.
    public var relationships: [String: [Int64]] {
        get { named?.relationships ?? layoutRelationshipsByName }
        set {
            if named == nil, let entity = modelEntity, let indexes = Self.relationshipIndexes(of: newValue, in: entity) {
                for index in entity.layout.toOneIndexes { values[index] = .null }
                toManyLists = []
                for (index, keys) in indexes { setKeys(keys, at: index) }
            } else {
                holdByName()
                replaceNamed(relationships: newValue)
            }
        }
    }

    /// Each non-`nil` value's attribute index, or `nil` if a name is not a stored attribute of `entity`.
    private static func attributeIndexes(of attributes: [String: StoreValue], in entity: EntityDescription) -> [(Int, StoreValue)]? {
        var result: [(Int, StoreValue)] = []
        for (name, value) in attributes where !value.isNull {
            guard let index = entity.propertyIndexes[name], entity.layout.kinds[index] == .attribute else { return nil }
            result.append((index, value))
        }
        return result
    }

    /// Each relationship's index, or `nil` if a name is not a relationship of `entity` or a
    /// to-one is given several keys.
    private static func relationshipIndexes(of relationships: [String: [Int64]], in entity: EntityDescription) -> [(Int, [Int64])]? {
        var result: [(Int, [Int64])] = []
        for (name, keys) in relationships {
            guard let index = entity.propertyIndexes[name] else { return nil }
            switch entity.layout.kinds[index] {
            case .toOne where keys.count <= 1, .toMany: result.append((index, keys))
            default: return nil
            }
        }
        return result
    }
}
