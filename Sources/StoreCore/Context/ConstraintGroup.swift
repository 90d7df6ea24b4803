/// The objects a save touches of one uniqueness constraint, grouped by their values in the
/// order the values were first met, each value with the stored row holding it (once looked up).
///
/// For example (inside a save that resolves conflicts):
///
/// ```swift
/// var group = ConstraintGroup(key: key)
/// group.add(object, values: .one(.string("c1")))
/// group.entries[0].count   // 1
/// ```
struct ConstraintGroup {
    /// A constraint and the entity that declares it.
    struct Key {
        let owner: EntityDescription
        let constraint: [String]
        /// `Owner:key1,key2`.
        let name: String

        init(owner: EntityDescription, constraint: [String]) {
            self.owner = owner
            self.constraint = constraint
            name = owner.name + ":" + constraint.joined(separator: ",")
        }

        /// The constraints an entity's objects carry, its own and inherited, on attributes only
        /// (relationship keys are left to the store's check).
        static func keys(of entity: EntityDescription) -> [Key] {
            BatchExecutor.uniquenessConstraints(of: entity).compactMap { owner, constraint in
                guard constraint.allSatisfy({ owner.attributesByName[$0] != nil }) else { return nil }
                return Key(owner: owner, constraint: constraint)
            }
        }

        /// How many of `entries`' values one fetch of the stored rows asks for: all of them for
        /// a single key whose values are text, numbers, booleans or dates (finite) — the SQL stores
        /// bind those as one list value, a JSON array in SQLite, an array in PostgreSQL, and the
        /// in-memory stores look them up in a set —, 10,000 for other values (UUIDs, binary data,
        /// which are bound one parameter each: well under PostgreSQL's 65,535), and 200 tuples
        /// for a compound key (a predicate per tuple).
        func fetchSize(for entries: [Entry]) -> Int {
            guard constraint.count == 1 else { return 200 }
            let bindsAsOneList = entries.allSatisfy { entry in
                guard case .one(let value) = entry.values else { return false }
                switch value {
                case .string, .integer, .boolean, .uri, .decimal: return true
                case .double(let number): return number.isFinite
                case .float(let number): return number.isFinite
                case .date(let date): return date.timeIntervalSinceReferenceDate.isFinite
                case .null, .data, .uuid, .objectID: return false
                }
            }
            return bindsAsOneList ? max(entries.count, 1) : 10_000
        }

        /// `key IN {…}` for one key; `(k1 == a AND k2 == b) OR …` for several.
        func predicate(matching tuples: some Sequence<ConstraintValues>) -> StorePredicate {
            if constraint.count == 1, let key = constraint.first {
                let constants = tuples.map { values -> StoreExpression in
                    switch values {
                    case .one(let value): .constant(value)
                    case .many(let values): .constant(values.first ?? .null)
                    }
                }
                return .comparison(StoreComparison(.keyPath(key), .in, .aggregate(constants)))
            }
            return .or(tuples.map { values in
                .and(zip(constraint, values.all).map { .comparison(StoreComparison(.keyPath($0), .equalTo, .constant($1))) })
            })
        }
    }

    /// A constraint's keys as property indexes of one entity that carries it, found once per
    /// entity rather than by name for every object.
    struct Placement {
        let key: Key
        let entity: EntityDescription
        private let indexes: [Int]

        /// `nil` when the entity lacks one of the keys.
        init?(key: Key, in entity: EntityDescription) {
            var indexes: [Int] = []
            for name in key.constraint {
                guard let index = entity.propertyIndexes[name] else { return nil }
                indexes.append(index)
            }
            self.key = key
            self.entity = entity
            self.indexes = indexes
        }

        /// Whether this save changes one of the constraint's attributes of `object` (of ``entity``).
        func isChanged(in object: ManagedObject) -> Bool {
            indexes.contains { object.changedProperties.contains($0) }
        }

        /// The values of `object` (of ``entity``) for the constraint; `nil` when one is nil (no conflict then).
        func values(of object: ManagedObject) -> ConstraintValues? {
            values { object.values[$0] }
        }

        /// A stored row's values (laid out as ``entity``) for the constraint; `nil` when one is nil.
        func values(of snapshot: StoreSnapshot) -> ConstraintValues? {
            values { snapshot[$0] }
        }

        private func values(_ value: (Int) -> StoreValue) -> ConstraintValues? {
            if indexes.count == 1 {
                let one = value(indexes[0])
                return one.isNull ? nil : .one(one)
            }
            var values: [StoreValue] = []
            values.reserveCapacity(indexes.count)
            for index in indexes {
                let part = value(index)
                if part.isNull { return nil }
                values.append(part)
            }
            return .many(values)
        }
    }

    /// One value of the constraint: the objects holding it and the stored row that does.
    struct Entry {
        let values: ConstraintValues
        /// The first object (no array for the one object most values have).
        private var first: ManagedObject
        private var others: [ManagedObject] = []
        /// The stored row holding the values, if any (and not deleted or moved by this save).
        var stored: StoreSnapshot?

        init(values: ConstraintValues, object: ManagedObject) {
            self.values = values
            first = object
        }

        /// How many objects hold the values.
        var count: Int { 1 + others.count }
        /// Whether a stored row or several objects hold the values (read without copying the row).
        var mayConflict: Bool {
            if case .some = stored { return true }
            return !others.isEmpty
        }
        /// Whether `objectID` is one of the objects'.
        func holds(_ objectID: ManagedObjectID) -> Bool {
            first.objectID == objectID || others.contains { $0.objectID == objectID }
        }
        /// The objects' IDs, in order.
        var objectIDs: [ManagedObjectID] {
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(count)
            ids.append(first.objectID)
            for object in others { ids.append(object.objectID) }
            return ids
        }

        /// New objects in insertion order, after any stored object this save moved onto the same
        /// values (so that one survives a resolution).
        mutating func add(_ object: ManagedObject) {
            if object.state.isInserted {
                others.append(object)
            } else {
                others.insert(first, at: 0)
                first = object
            }
        }
    }

    let key: Key
    private(set) var entries: [Entry] = []
    /// Each value's entry: a table of slots (open addressing, probed one after another), each
    /// the entry's position in ``entries`` plus one in its low 32 bits and the high 32 bits of
    /// its values' hash above them, 0 when empty. The values themselves are compared in
    /// ``entries``: no second copy of each is kept as a key (a dictionary of the positions kept
    /// one, and touched three arrays per value where this touches one slot).
    private var slots: [UInt64] = []

    private static let tagBits: UInt64 = 0xFFFF_FFFF_0000_0000

    init(key: Key) { self.key = key }

    /// Makes room for `count` more objects, so that adding them never grows (and refills) the
    /// table of values.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(entries.count + count)
        makeRoom(for: entries.count + count)
    }

    /// Adds an object under its values (one hash of the values).
    mutating func add(_ object: ManagedObject, values: ConstraintValues) {
        makeRoom(for: entries.count + 1)
        let hash = Self.hash(values)
        switch find(values, hash: hash) {
        case .found(let position): entries[position].add(object)
        case .empty(let slot):
            slots[slot] = (hash & Self.tagBits) | UInt64(entries.count + 1)
            entries.append(Entry(values: values, object: object))
        }
    }

    /// Notes the stored row holding `values` (the last one given wins). The entry is looked for
    /// first at `next` and the few entries after it, below `end` — rows mostly come in the order
    /// of the values asked for (SQLite joins the list to the rows in its order), each then found
    /// without a hash, in entries read one after another —, then through the table; `next` moves
    /// past the entry found.
    mutating func setStored(_ snapshot: StoreSnapshot, for values: ConstraintValues, searchingFrom next: inout Int, before end: Int) {
        var position = next
        let window = min(end, next + Self.storedRowWindow)
        while position < window, entries[position].values != values { position += 1 }
        if position >= window {
            guard !slots.isEmpty, case .found(let found) = find(values, hash: Self.hash(values)) else { return }
            position = found
        }
        entries[position].stored = snapshot
        next = position + 1
    }

    /// How many entries ``setStored(_:for:searchingFrom:before:)`` compares before it hashes.
    private static let storedRowWindow = 4

    private static func hash(_ values: ConstraintValues) -> UInt64 {
        UInt64(truncatingIfNeeded: values.hashValue)
    }

    /// Where `values` are: their entry's position, or the empty slot that ends their probe.
    private enum Place {
        case found(Int)
        case empty(Int)
    }

    /// `values`' entry, or the slot to put it in (the table has an empty slot: it is at most half full).
    private func find(_ values: ConstraintValues, hash: UInt64) -> Place {
        let mask = slots.count - 1, tag = hash & Self.tagBits
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let found = slots[slot]
            if found == 0 { return .empty(slot) }
            if found & Self.tagBits == tag {
                let position = Int(truncatingIfNeeded: found & ~Self.tagBits) - 1
                if entries[position].values == values { return .found(position) }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Makes the table at least twice `count` slots (a power of two), putting the entries back
    /// in when it grows.
    private mutating func makeRoom(for count: Int) {
        guard slots.count < count * 2 else { return }
        var size = 16
        while size < count * 2 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        let mask = size - 1
        for position in entries.indices {
            let hash = Self.hash(entries[position].values)
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = (hash & Self.tagBits) | UInt64(position + 1)
        }
    }

    /// The values of the entries at `positions`, for a constraint on one key (the first value of
    /// a tuple otherwise, as ``Key/predicate(matching:)`` takes it).
    func singleValues(in positions: Range<Int>) -> [StoreValue] {
        var values: [StoreValue] = []
        values.reserveCapacity(positions.count)
        for position in positions {
            switch entries[position].values {
            case .one(let value): values.append(value)
            case .many(let parts): values.append(parts.first ?? .null)
            }
        }
        return values
    }

    /// Appends the group's conflicts to `conflicts`, in the order of ``entries``: each value held
    /// by a stored row other than one of its objects' own, or by several objects. The entries are
    /// read in place (a copy of each would retain every reference it holds), and their stored
    /// rows move into the conflicts (the entries are left without them).
    mutating func takeConflicts(into conflicts: inout [ConstraintConflict]) {
        // Room for every one first: the list is not copied as it grows.
        var found = 0
        for position in entries.indices where entries[position].mayConflict { found += 1 }
        conflicts.reserveCapacity(conflicts.count + found)
        let entity = key.owner.name, constraint = key.constraint
        for position in entries.indices where entries[position].mayConflict {
            // An updated object's own row is no conflict with itself.
            var row = entries[position].stored.take()
            if let id = row?.objectID, entries[position].holds(id) { row = nil }
            if case .none = row, entries[position].count == 1 { continue }
            conflicts.append(ConstraintConflict(
                entity: entity, constraint: constraint, values: entries[position].values,
                databaseObjectID: row?.objectID, databaseSnapshot: row, conflictingObjectIDs: entries[position].objectIDs
            ))
        }
    }
}

/// One object's values for a constraint: a single value (most constraints have one key, and
/// this needs no array per object) or several.
enum ConstraintValues: Hashable, Sendable {
    case one(StoreValue)
    case many([StoreValue])

    var all: [StoreValue] {
        switch self {
        case .one(let value): [value]
        case .many(let values): values
        }
    }
}
