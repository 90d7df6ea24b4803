/// One object of an ``AtomicStoreFile``: its entity, its primary key and its contents **laid out
/// by the entity**, as a ``StoreSnapshot`` is — attribute values by property index, and for each
/// relationship the keys of the objects it holds (at most one for a to-one; in order for an
/// ordered to-many).
///
/// Formats read straight into that layout and write from it, so an object costs one array of
/// values and no string hashing between the bytes and the engine's snapshots. Objects can also be
/// built and read by name (``init(entityName:primaryKey:attributes:relationships:)``,
/// ``attributes``, ``relationships``), the convenient form for your own formats and for tests;
/// the engine resolves those names against the model when the store is loaded.
///
/// What the layout has no room for — a name the entity does not have as a stored property of
/// that kind, several keys in a to-one relationship — keeps the object **by name**, and the
/// engine refuses it when loading, with the same ``StoreError`` as any other such file.
///
/// For example:
///
/// ```swift
/// var post = AtomicStoreObject(entity: postEntity, primaryKey: 7)
/// if let title = postEntity.propertyIndexes["title"], let author = postEntity.propertyIndexes["author"] {
///     post[title] = "Hello"                        // an attribute, by index
///     post.setTargetKey(3, at: author)             // a to-one relationship: the key of object 3
/// }
/// let byName = AtomicStoreObject(entityName: "Post", primaryKey: 7, attributes: ["title": "Hello"], relationships: ["author": [3]])
/// post == byName                                   // true
/// post.attributes                                  // ["title": "Hello"]
/// ```
public struct AtomicStoreObject: Sendable {
    /// The object's key, unique in the whole file (as the `z<n>` IDs of Core Data's XML store are).
    public var primaryKey: Int64
    /// The entity the object was made for: the one its contents are laid out by, unless
    /// ``named`` holds them. `nil` for an object built by name alone.
    @usableFromInline var modelEntity: EntityDescription?
    /// The contents by name, when the object is held by name; `nil` when it is laid out.
    @usableFromInline var named: NamedContents?
    /// One slot per property of ``modelEntity``, by index: attribute values, and a to-one
    /// relationship's target key as ``StoreValue/integer(_:)`` (or, in a file the engine makes,
    /// the target's ``StoreValue/objectID(_:)``); `.null` elsewhere. Empty when held by name.
    @usableFromInline var values: StoreValues
    /// The to-many relationships holding keys, by property index, in index order.
    @usableFromInline var toManyLists: [ToManyKeys]

    /// The keys a to-many relationship holds, at its property index.
    @usableFromInline struct ToManyKeys: Sendable, Hashable {
        @usableFromInline let index: Int
        @usableFromInline var keys: [Int64]

        @usableFromInline init(index: Int, keys: [Int64]) {
            self.index = index
            self.keys = keys
        }
    }

    /// An object's contents by name, shared until changed.
    @usableFromInline final class NamedContents: Sendable {
        @usableFromInline let entityName: String
        @usableFromInline let attributes: [String: StoreValue]
        @usableFromInline let relationships: [String: [Int64]]

        init(entityName: String, attributes: [String: StoreValue], relationships: [String: [Int64]]) {
            self.entityName = entityName
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    /// An object of `entity` with no values yet (every attribute `nil`, every relationship empty),
    /// to be filled by property index.
    public init(entity: EntityDescription, primaryKey: Int64) {
        self.primaryKey = primaryKey
        self.modelEntity = entity
        self.named = nil
        self.values = entity.layout.nullValues
        self.toManyLists = []
    }

    /// A laid-out object over values the engine already holds (a snapshot's own array, shared).
    init(entity: EntityDescription, primaryKey: Int64, values: StoreValues, toManyLists: [ToManyKeys]) {
        self.primaryKey = primaryKey
        self.modelEntity = entity
        self.named = nil
        self.values = values
        self.toManyLists = toManyLists
    }

    /// An object holding nothing: what a loader leaves in an array it takes objects out of.
    static let taken = AtomicStoreObject(entityName: "", primaryKey: 0)

    /// The entity the object is laid out by; `nil` when it is held by name (built by name, or
    /// given something the layout has no room for).
    public var entity: EntityDescription? { named == nil ? modelEntity : nil }

    // MARK: Values by index

    /// The value at a property index of the object's entity: an attribute's value (`.null` for
    /// `nil`); at a to-one relationship's index, the target's key as ``StoreValue/integer(_:)``
    /// (``targetKey(at:)`` reads it as a key); `.null` out of range and where nothing was written.
    ///
    /// Setting writes the slot as it is, with no check: the engine checks every slot against the
    /// model when the store is loaded (a value of the wrong type, or a value where the entity
    /// stores none, is refused as in any file). On an object built by name alone, setting does
    /// nothing, as there is no entity to index.
    ///
    /// - Complexity: O(1); no name is looked up.
    public subscript(index: Int) -> StoreValue {
        @inlinable get {
            if let named {
                guard let entity = modelEntity, let name = entity.nameOfProperty(at: index) else { return .null }
                if let value = named.attributes[name] { return value }
                if entity.layout.kinds[index] == .toOne, let keys = named.relationships[name], keys.count == 1 { return .integer(keys[0]) }
                return .null
            }
            guard index >= 0, index < values.count else { return .null }
            let value = values[index]
            if case .objectID(let id) = value, modelEntity?.layout.kinds[index] == .toOne, let key = id.primaryKey { return .integer(key) }
            return value
        }
        set {
            if named == nil, index >= 0, index < values.count {
                values[index] = newValue
                return
            }
            guard let entity = modelEntity, let name = entity.nameOfProperty(at: index) else { return }
            if entity.layout.kinds[index] == .toOne, newValue.isNull || Self.key(in: newValue) != nil {
                setTargetKey(Self.key(in: newValue), at: index)
                return
            }
            var attributes = named?.attributes ?? [:]
            attributes[name] = newValue
            replaceNamed(attributes: attributes)
        }
    }

    // MARK: Relationships by index

    /// The keys of the objects the relationship at a property index holds (empty when none).
    ///
    /// - Complexity: O(*r*) in the number of to-many relationships holding keys; the entity is
    ///   not consulted, so pass a relationship's index.
    @inlinable public func keys(at index: Int) -> [Int64] {
        if let named {
            guard let name = modelEntity?.nameOfProperty(at: index) else { return [] }
            return named.relationships[name] ?? []
        }
        for list in toManyLists where list.index == index { return list.keys }
        guard index >= 0, index < values.count else { return [] }
        return Self.key(in: values[index]).map { [$0] } ?? []
    }

    /// The key of the one object the to-one relationship at a property index holds; `nil` when
    /// it holds none (or, on an object held by name, more than one).
    ///
    /// - Complexity: O(1); the entity is not consulted, so pass a to-one relationship's index.
    @inlinable public func targetKey(at index: Int) -> Int64? {
        if let named {
            guard let name = modelEntity?.nameOfProperty(at: index), let keys = named.relationships[name], keys.count == 1 else { return nil }
            return keys[0]
        }
        guard index >= 0, index < values.count else { return nil }
        return Self.key(in: values[index])
    }

    /// Makes the relationship at a property index hold the objects with these keys (in order for
    /// an ordered to-many). Several keys in a to-one relationship, or keys at an index that is not
    /// a relationship's, keep the object by name (the engine then refuses it when loading); keys
    /// for a transient relationship are dropped, as stores keep none.
    public mutating func setKeys(_ keys: [Int64], at index: Int) {
        guard let entity = modelEntity, let name = entity.nameOfProperty(at: index) else { return }
        if entity.properties[index].isTransient, entity.layout.kinds[index] == .toOne || entity.layout.kinds[index] == .toMany { return }
        if named == nil {
            switch entity.layout.kinds[index] {
            case .toOne where keys.count <= 1:
                values[index] = keys.first.map(StoreValue.integer) ?? .null
                return
            case .toMany:
                setToManyKeys(keys, at: index)
                return
            default:
                break
            }
        }
        holdByName()
        var relationships = named?.relationships ?? [:]
        relationships[name] = keys
        replaceNamed(relationships: relationships)
    }

    /// Makes the to-one relationship at a property index hold the object with `key`, or nothing.
    public mutating func setTargetKey(_ key: Int64?, at index: Int) {
        if named == nil, let entity = modelEntity, index >= 0, index < values.count, entity.layout.kinds[index] == .toOne,
            !entity.properties[index].isTransient
        {
            values[index] = key.map(StoreValue.integer) ?? .null
        } else {
            setKeys(key.map { [$0] } ?? [], at: index)
        }
    }

    mutating func setToManyKeys(_ keys: [Int64], at index: Int) {
        if let position = toManyLists.firstIndex(where: { $0.index >= index }) {
            if toManyLists[position].index == index {
                if keys.isEmpty { toManyLists.remove(at: position) } else { toManyLists[position].keys = keys }
            } else if !keys.isEmpty {
                toManyLists.insert(ToManyKeys(index: index, keys: keys), at: position)
            }
        } else if !keys.isEmpty {
            toManyLists.append(ToManyKeys(index: index, keys: keys))
        }
    }

    /// The key a to-one slot holds: an `.integer` key, or the primary key of an `.objectID`.
    @usableFromInline static func key(in slot: StoreValue) -> Int64? {
        switch slot {
        case .integer(let key): key
        case .objectID(let id): id.primaryKey
        default: nil
        }
    }

    // MARK: Held by name

    /// Moves the contents from the layout to names (nothing when already held by name).
    mutating func holdByName() {
        guard named == nil else { return }
        let entity = modelEntity
        named = NamedContents(entityName: entity?.name ?? "", attributes: layoutAttributesByName, relationships: layoutRelationshipsByName)
        values = StoreValues()
        toManyLists = []
    }

    mutating func replaceNamed(entityName: String? = nil, attributes: [String: StoreValue]? = nil, relationships: [String: [Int64]]? = nil) {
        let current = named
        named = NamedContents(
            entityName: entityName ?? current?.entityName ?? modelEntity?.name ?? "",
            attributes: attributes ?? current?.attributes ?? [:],
            relationships: relationships ?? current?.relationships ?? [:])
    }

    /// The non-`nil` values of a laid-out object, by name: its attributes, and whatever else a
    /// slot holds that is not a relationship's key (which the engine refuses when loading).
    var layoutAttributesByName: [String: StoreValue] {
        guard let entity = modelEntity else { return [:] }
        var result: [String: StoreValue] = [:]
        for (index, kind) in entity.layout.kinds.enumerated() where index < values.count && !values[index].isNull {
            if kind == .toOne, Self.key(in: values[index]) != nil || entity.properties[index].isTransient { continue }
            result[entity.properties[index].name] = values[index]
        }
        return result
    }

    /// The non-empty relationships of a laid-out object, by name.
    var layoutRelationshipsByName: [String: [Int64]] {
        guard let entity = modelEntity else { return [:] }
        var result: [String: [Int64]] = [:]
        for index in entity.layout.toOneIndexes where index < values.count && !entity.properties[index].isTransient {
            if let key = Self.key(in: values[index]) { result[entity.properties[index].name] = [key] }
        }
        for list in toManyLists { result[entity.properties[list.index].name] = list.keys }
        return result
    }
}

extension EntityDescription {
    /// The name of the property at `index`, or `nil` for an index out of range.
    @usableFromInline func nameOfProperty(at index: Int) -> String? {
        index >= 0 && index < properties.count ? properties[index].name : nil
    }
}
