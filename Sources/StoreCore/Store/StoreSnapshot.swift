/// An object's saved state as a store returns it: its ID, its version and its values, laid out
/// by its entity.
///
/// Values sit at their property's index in ``EntityDescription/properties``: attributes, and
/// to-one relationships as ``StoreValue/objectID(_:)`` or ``StoreValue/null``. To-many
/// relationships are held apart, as lists of IDs by the same indexes, for those a store returns
/// eagerly (atomic stores return all of them; SQLite leaves them out, and contexts ask for them
/// when first read). ``heldProperties`` says which properties the snapshot holds: every stored
/// attribute and to-one for a snapshot made with ``init(objectID:version:entity:)``, the changed
/// ones for an update in a ``StoreChangeSet``.
///
/// Stores on the hot path write values by index; the by-name subscript is there for your own
/// stores, tests and debugging.
///
/// For example:
///
/// ```swift
/// var snapshot = StoreSnapshot(objectID: id, version: 1, entity: post)
/// snapshot["title"] = "Misty Morning"              // by name (looked up in the entity)
/// if let index = post.propertyIndexes["title"] {
///     snapshot[index]                              // .string("Misty Morning"), by index
/// }
/// snapshot["missing"]                              // .null
/// snapshot.setToMany([commentID], forKey: "comments")
/// ```
public struct StoreSnapshot: Sendable, Hashable {
    /// The ID of the object whose state this is.
    public var objectID: ManagedObjectID
    /// Incremented by every save that changes the object (1 after insertion); used for optimistic locking.
    public var version: Int64
    /// The entity whose property order the values follow.
    public let entity: EntityDescription
    /// One value per property of ``entity``, by index (`.null` for to-many and transient
    /// properties). Only the properties in ``heldProperties`` are the snapshot's: read a partial
    /// snapshot's values through them (or ``heldValues``).
    public private(set) var values: StoreValues
    /// What a snapshot holds beyond every stored attribute and to-one: `nil` for the common
    /// complete snapshot (a row read, an object's values), so that making one allocates nothing
    /// but its values buffer (a fetch of 100,000 rows made 100,000 of these apart from their
    /// values), and a copy costs three references.
    private var partial: Partial?

    /// A partial snapshot's held properties and to-many relationships, shared by copies until
    /// one of them changes.
    fileprivate final class Partial: @unchecked Sendable {
        // @unchecked: copy on write — a `Partial` two snapshots share is never changed; a change
        // goes to a private copy unless the snapshot holds the only reference.
        var heldProperties: PropertyMask
        var toManyEntries: [ToManyEntry]

        init(heldProperties: PropertyMask, toManyEntries: [ToManyEntry] = []) {
            self.heldProperties = heldProperties
            self.toManyEntries = toManyEntries
        }

        /// Shared by every snapshot that holds nothing (a deletion, the start of an update):
        /// never changed in place, since the reference here keeps it from being unique.
        static let holdsNothing = Partial(heldProperties: PropertyMask())
    }

    /// The properties the snapshot holds a value or an ID list for.
    public var heldProperties: PropertyMask { partial?.heldProperties ?? entity.layout.storedValues }
    /// The to-many relationships the snapshot holds, by property index, in index order.
    private var toManyEntries: [ToManyEntry] { partial?.toManyEntries ?? [] }

    /// Whether the snapshot holds exactly every stored attribute and to-one relationship and no
    /// to-many: then its values, with the object's ID and version, are all it says.
    package var holdsStoredValuesOnly: Bool { partial == nil }

    /// Moves the values out, leaving the snapshot empty values: for a snapshot about to be let
    /// go, whose values an object takes. (A copy would cost a retain of the buffer, a cache miss
    /// per row of a large fetch; the compiler does not make a consumed snapshot's values a move.)
    package mutating func takeValues() -> StoreValues {
        var taken = StoreValues()
        swap(&taken, &values)
        return taken
    }

    /// The partial state, made this snapshot's own before a change (from the complete state
    /// when there was none).
    private mutating func uniquePartial() -> Partial {
        if isKnownUniquelyReferenced(&partial), let partial { return partial }
        let made = partial.map { Partial(heldProperties: $0.heldProperties, toManyEntries: $0.toManyEntries) }
            ?? Partial(heldProperties: entity.layout.storedValues)
        partial = made
        return made
    }

    fileprivate struct ToManyEntry: Sendable, Hashable {
        let index: Int
        var ids: [ManagedObjectID]
    }

    /// A snapshot holding every stored attribute and to-one relationship of `entity`, all
    /// `.null` until set, and no to-many relationship.
    public init(objectID: ManagedObjectID, version: Int64, entity: EntityDescription) {
        self.init(objectID: objectID, version: version, entity: entity, values: entity.layout.nullValues)
    }

    /// A complete snapshot over values already laid out by `entity` (one per property, by index):
    /// the objects' own values buffers, shared rather than copied; a store's row read into its values
    /// before the snapshot is made (cheaper than setting each value on the snapshot).
    package init(objectID: ManagedObjectID, version: Int64, entity: EntityDescription, values: StoreValues) {
        self.objectID = objectID
        self.version = version
        self.entity = entity
        self.values = values
        self.partial = nil
    }

    /// A partial snapshot holding `held` of values already laid out by `entity`: an update's
    /// changed attributes, read from the object's own values buffer, shared rather than copied (the
    /// values at other indexes are not the snapshot's).
    package init(objectID: ManagedObjectID, version: Int64, entity: EntityDescription, values: StoreValues, holding held: PropertyMask) {
        self.init(objectID: objectID, version: version, entity: entity, values: values)
        partial = Partial(heldProperties: held)
    }

    /// The held properties the last update of a save was made with, for the next to share
    /// (see ``init(objectID:version:entity:values:holding:sharing:)``).
    package struct SharedHolding {
        fileprivate var last: Partial?

        package init() {}
    }

    /// A partial snapshot holding `held`, as ``init(objectID:version:entity:values:holding:)``,
    /// that shares its held properties (copy on write) with the last snapshot made through
    /// `shared` when that holds exactly `held` and no to-many relationship: the updates of one
    /// save mostly change the same attributes, and a million of them held a million equal masks
    /// apart.
    package init(
        objectID: ManagedObjectID, version: Int64, entity: EntityDescription, values: StoreValues,
        holding held: PropertyMask, sharing shared: inout SharedHolding
    ) {
        self.init(objectID: objectID, version: version, entity: entity, values: values)
        if let last = shared.last, last.toManyEntries.isEmpty, last.heldProperties == held {
            partial = last
        } else {
            let made = Partial(heldProperties: held)
            shared.last = made
            partial = made
        }
    }

    /// A snapshot holding nothing yet: the start of an update, or of a deletion (which carries
    /// only the ID and the version last read).
    public static func partial(objectID: ManagedObjectID, version: Int64, entity: EntityDescription) -> StoreSnapshot {
        var snapshot = StoreSnapshot(objectID: objectID, version: version, entity: entity, values: entity.layout.nullValues)
        snapshot.partial = .holdsNothing
        return snapshot
    }

    /// A snapshot from values and to-many IDs given by name: the convenient form for your own
    /// stores and for tests.
    ///
    /// - Throws: ``ModelError`` (code `unknownKey`) for a name the entity does not have, or a
    ///   to-many relationship given among the values (or anything else among the to-manys).
    public init(
        objectID: ManagedObjectID, version: Int64, entity: EntityDescription,
        values: [String: StoreValue], toMany: [String: [ManagedObjectID]] = [:]
    ) throws(ModelError) {
        self.init(objectID: objectID, version: version, entity: entity)
        for (key, value) in values {
            let index = try Self.index(of: key, in: entity)
            guard entity.layout.kinds[index] != .toMany else {
                throw ModelError(.unknownKey, entity: entity.name, key: key, "\(key) is a to-many relationship; pass its IDs in toMany")
            }
            self[index] = value
        }
        for (key, ids) in toMany {
            let index = try Self.index(of: key, in: entity)
            guard entity.layout.kinds[index] == .toMany else {
                throw ModelError(.unknownKey, entity: entity.name, key: key, "\(key) is not a to-many relationship of \(entity.name)")
            }
            setToMany(ids, at: index)
        }
    }

    private static func index(of key: String, in entity: EntityDescription) throws(ModelError) -> Int {
        guard let index = entity.propertyIndexes[key] else {
            throw ModelError(.unknownKey, entity: entity.name, key: key, "no property '\(key)' on entity \(entity.name)")
        }
        return index
    }

    // MARK: By index

    /// The value at a property index (`.null` when not held). Setting it adds the property to
    /// ``heldProperties``.
    public subscript(index: Int) -> StoreValue {
        get { values[index] }
        set {
            values[index] = newValue
            if let partial, partial.heldProperties.contains(index) { return }
            if partial == nil, entity.layout.storedValues.contains(index) { return }
            uniquePartial().heldProperties.insert(index)
        }
    }

    /// Sets the value at `index` without marking it held: for stores filling a complete
    /// snapshot (whose stored values are held already) on the hot path.
    public mutating func setValue(_ value: StoreValue, at index: Int) {
        values[index] = value
    }

    /// The IDs of the to-many relationship at `index`, or `nil` when the snapshot does not hold it.
    public func toMany(at index: Int) -> [ManagedObjectID]? {
        for entry in toManyEntries where entry.index == index { return entry.ids }
        return nil
    }

    /// Holds `ids` as the to-many relationship at `index`.
    public mutating func setToMany(_ ids: [ManagedObjectID], at index: Int) {
        let held = uniquePartial()
        held.heldProperties.insert(index)
        if let position = held.toManyEntries.firstIndex(where: { $0.index >= index }) {
            if held.toManyEntries[position].index == index {
                held.toManyEntries[position].ids = ids
            } else {
                held.toManyEntries.insert(ToManyEntry(index: index, ids: ids), at: position)
            }
        } else {
            held.toManyEntries.append(ToManyEntry(index: index, ids: ids))
        }
    }

    /// Whether the snapshot holds any to-many relationship.
    public var holdsToMany: Bool { partial.map { !$0.toManyEntries.isEmpty } ?? false }

    /// The held to-many relationships, by property index, in index order.
    public var toManyRelationships: [(index: Int, ids: [ManagedObjectID])] {
        toManyEntries.map { ($0.index, $0.ids) }
    }

    /// The held attributes and to-one relationships (not the to-manys), in index order.
    public var heldValues: [(index: Int, value: StoreValue)] {
        heldProperties.compactMap { entity.layout.kinds[$0] == .toMany ? nil : ($0, values[$0]) }
    }

    /// Takes every property `update` holds (values and to-manys) from it.
    public mutating func merge(_ update: StoreSnapshot) {
        guard update.entity === entity else {
            mergeByName(update)
            return
        }
        for index in update.heldProperties {
            if entity.layout.kinds[index] == .toMany {
                if let ids = update.toMany(at: index) { setToMany(ids, at: index) }
            } else {
                self[index] = update.values[index]
            }
        }
    }

    private mutating func mergeByName(_ update: StoreSnapshot) {
        for (index, value) in update.heldValues {
            guard let mine = entity.propertyIndexes[update.entity.properties[index].name], entity.layout.kinds[mine] != .toMany else { continue }
            self[mine] = value
        }
        for entry in update.toManyEntries {
            guard let mine = entity.propertyIndexes[update.entity.properties[entry.index].name], entity.layout.kinds[mine] == .toMany else { continue }
            setToMany(entry.ids, at: mine)
        }
    }

    // MARK: By name

    /// The value for `key` (`.null` when the entity has no such property or the snapshot does
    /// not hold it). Setting an unknown key does nothing; use ``init(objectID:version:entity:values:toMany:)``
    /// to be told about unknown names.
    public subscript(key: String) -> StoreValue {
        get {
            guard let index = entity.propertyIndexes[key], heldProperties.contains(index) else { return .null }
            return values[index]
        }
        set {
            guard let index = entity.propertyIndexes[key], entity.layout.kinds[index] != .toMany else { return }
            self[index] = newValue
        }
    }

    /// The IDs of the to-many relationship `key`, or `nil` when the snapshot does not hold it.
    public func toMany(forKey key: String) -> [ManagedObjectID]? {
        entity.propertyIndexes[key].flatMap { toMany(at: $0) }
    }

    /// Holds `ids` as the to-many relationship `key` (ignored when the entity has no such to-many).
    public mutating func setToMany(_ ids: [ManagedObjectID], forKey key: String) {
        guard let index = entity.propertyIndexes[key], entity.layout.kinds[index] == .toMany else { return }
        setToMany(ids, at: index)
    }

    /// The held attribute and to-one values by name, leaving out `.null`s: for debugging and for
    /// stores that write by name.
    public var valuesByName: [String: StoreValue] {
        var result: [String: StoreValue] = [:]
        for (index, value) in heldValues where !value.isNull { result[entity.properties[index].name] = value }
        return result
    }

    /// The held to-many relationships by name.
    public var toManyByName: [String: [ManagedObjectID]] {
        var result: [String: [ManagedObjectID]] = [:]
        for entry in toManyEntries { result[entity.properties[entry.index].name] = entry.ids }
        return result
    }

    /// The same state laid out by `other` (an entity of the same name in another model), by name.
    public func laidOut(as other: EntityDescription) -> StoreSnapshot {
        if other === entity { return self }
        let stored = entity.layout.storedValues
        let isComplete = heldProperties.intersection(stored) == stored
        var result = isComplete
            ? StoreSnapshot(objectID: objectID, version: version, entity: other)
            : .partial(objectID: objectID, version: version, entity: other)
        result.mergeByName(self)
        return result
    }

    // MARK: Equality

    public static func == (lhs: StoreSnapshot, rhs: StoreSnapshot) -> Bool {
        return lhs.objectID == rhs.objectID && lhs.version == rhs.version && lhs.entity === rhs.entity
            && lhs.heldProperties == rhs.heldProperties && lhs.toManyEntries == rhs.toManyEntries
            && lhs.heldProperties.allSatisfy { lhs.values[$0] == rhs.values[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(version)
    }
}

extension StoreSnapshot: CustomStringConvertible {
    public var description: String {
        let values = valuesByName.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let toMany = toManyByName.sorted { $0.key < $1.key }.map { "\($0.key)=[\($0.value.count) IDs]" }
        return "<StoreSnapshot \(objectID) v\(version) \((values + toMany).joined(separator: " "))>"
    }
}
