/// The objects a context holds, by ID: at most one object per ID (uniquing).
///
/// IDs of one entity in one store share a ``ManagedObjectID/Space``, and a store's primary keys
/// are mostly dense (1, 2, 3, …), so each space keeps its objects in an array indexed by key,
/// with a dictionary only for keys far beyond the array (sparse keys); the array's start moves
/// up past objects let go (a batched fetch walking a table). Temporary IDs come from
/// one process-wide sequence, so the new objects of one entity have nearly consecutive keys far
/// from 0: a temporary space's array starts at the first key it holds (``Segment/base``).
/// Finding an object is then an identity check of the space and an array read — no hashing per
/// object, also when a save moves its new objects from temporary to permanent IDs.
///
/// For example (inside the context):
///
/// ```swift
/// registered[id] = object
/// if let held = registered[id] { … }
/// registered.removeUnreferenced { object in !object.hasChanges }
/// ```
struct RegistrationTable {
    /// The objects of one space.
    private struct Segment {
        let space: ManagedObjectID.Space
        /// The key of `dense[0]`: 0 for a store's keys; for temporary keys, the first one held
        /// while the segment was empty.
        var base: Int64 = 0
        /// Objects by key − `base`, for keys from `base` below `base + dense.count`.
        var dense: ContiguousArray<ManagedObject?> = []
        /// Objects whose keys fall outside `dense`.
        var sparse: [SparseKey: ManagedObject] = [:]
        var count = 0

        init(space: ManagedObjectID.Space) { self.space = space }

        /// The position of `key` in `dense`, if it falls inside it.
        func slot(_ key: Int64) -> Int? {
            let offset = key &- base
            return offset >= 0 && offset < Int64(dense.count) ? Int(offset) : nil
        }

        subscript(key: Int64) -> ManagedObject? {
            if let slot = slot(key) { return dense[slot] }
            return sparse.isEmpty ? nil : sparse[SparseKey(key)]
        }

        /// Stores `object` under `key` (`nil` removes); returns the change in count.
        mutating func set(_ object: consuming ManagedObject?, at key: Int64) -> Int {
            let change: Int
            if let slot = slot(key) {
                change = (object != nil ? 1 : 0) - (dense[slot] != nil ? 1 : 0)
                dense[slot] = object
            } else if object != nil, let slot = makeSlot(for: key) {
                // Growing may have moved the key's old entry in from `sparse`.
                change = dense[slot] == nil ? 1 : 0
                dense[slot] = object
            } else if let object {
                change = sparse.updateValue(object, forKey: SparseKey(key)) == nil ? 1 : 0
            } else {
                change = sparse.removeValue(forKey: SparseKey(key)) == nil ? 0 : -1
            }
            count += change
            if count == 0 && space.isTemporary && !dense.isEmpty {
                // Every new object got its permanent ID: the next ones start a new run of keys.
                dense = []
                sparse = [:]
            }
            return change
        }

        /// Grows `dense` to reach `key` when that keeps it at most about twice as long as the
        /// objects held (else the key goes to `sparse`); returns its position.
        private mutating func makeSlot(for key: Int64) -> Int? {
            if dense.isEmpty && count == 0 && space.isTemporary { base = key }
            let limit = Int64(Swift.max(1024, 2 * (count + 1)))
            var offset = key &- base
            if offset >= limit && slide(toward: key, limit: limit) { offset = key &- base }
            guard offset >= 0, offset < limit else { return nil }
            grow(toHold: Int(offset))
            return Int(offset)
        }

        /// Moves the start of `dense` up to the first object it holds when `key` then falls
        /// within `limit` of it: a batched fetch walking a large table lets its earlier objects
        /// go, and its later keys would otherwise all go to `sparse`. Tried only while `sparse`
        /// is empty, so that keys that are truly sparse do not make every registration search
        /// the array.
        private mutating func slide(toward key: Int64, limit: Int64) -> Bool {
            guard sparse.isEmpty else { return false }
            guard let first = dense.firstIndex(where: { $0 != nil }) else {
                // Nothing held in the array: it starts again at `key`.
                dense = []
                base = key
                return true
            }
            let newBase = base &+ Int64(first)
            guard key &- newBase < limit else { return false }
            dense.removeFirst(first)
            base = newBase
            return true
        }

        /// Grows `dense` to reach a store's `key` before `adding` objects are registered, when
        /// they would keep it at most about twice as long as the objects held.
        mutating func reserve(upTo key: Int64, adding: Int) {
            let offset = key &- base
            guard !space.isTemporary, offset >= Int64(dense.count), offset < Int64(Swift.max(1024, 2 * (count + adding))) else { return }
            grow(toHold: Int(offset))
        }

        /// Makes the array reach position `slot`, moving sparse entries that now fall inside it.
        private mutating func grow(toHold slot: Int) {
            let newCount = Swift.max(slot + 1, 2 * dense.count, 16)
            dense.append(contentsOf: repeatElement(nil, count: newCount - dense.count))
            guard !sparse.isEmpty else { return }
            for (sparseKey, object) in sparse {
                guard let position = self.slot(sparseKey.key) else { continue }
                dense[position] = object
                sparse[sparseKey] = nil
            }
        }
    }

    private var segments: [Segment] = []
    /// The segment the last lookup used: fetches and saves work on one entity at a time.
    private var lastSegment = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The segment of `space`, by identity first (IDs a store makes share their space), then by value.
    private mutating func segmentIndex(for space: ManagedObjectID.Space, creating: Bool) -> Int? {
        if lastSegment < segments.count, segments[lastSegment].space === space { return lastSegment }
        for index in segments.indices where segments[index].space === space {
            lastSegment = index
            return index
        }
        for index in segments.indices where segments[index].space.matches(space) {
            lastSegment = index
            return index
        }
        guard creating else { return nil }
        segments.append(Segment(space: space))
        lastSegment = segments.count - 1
        return lastSegment
    }

    private func findSegment(for space: ManagedObjectID.Space) -> Int? {
        if lastSegment < segments.count, segments[lastSegment].space === space { return lastSegment }
        return segments.firstIndex { $0.space === space } ?? segments.firstIndex { $0.space.matches(space) }
    }

    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { findSegment(for: id.space).flatMap { segments[$0][id.key] } }
        set {
            guard let index = segmentIndex(for: id.space, creating: newValue != nil) else { return }
            count += segments[index].set(newValue, at: id.key)
        }
    }

    /// Registers `object` under `id`: what `self[id] = object` does, without the retain and
    /// release of the object and of the ID's space a subscript's setter costs (they were a
    /// tenth of making a fetched object).
    mutating func register(_ object: consuming ManagedObject, under id: borrowing ManagedObjectID) {
        guard let index = segmentIndex(for: id.space, creating: true) else { return }
        count += segments[index].set(consume object, at: id.key)
    }

    /// Makes room for `adding` objects of `id`'s space with keys up to `id`'s: a fetch that
    /// registers its rows from the last (highest key) down would otherwise find each key beyond
    /// the dense array and keep it in the sparse dictionary.
    mutating func reserve(upTo id: ManagedObjectID, adding: Int) {
        guard let index = segmentIndex(for: id.space, creating: true) else { return }
        segments[index].reserve(upTo: id.key, adding: adding)
    }

    /// Every registered object, in no particular order.
    var objects: [ManagedObject] {
        var all: [ManagedObject] = []
        all.reserveCapacity(count)
        for segment in segments {
            for case let object? in segment.dense { all.append(object) }
            all.append(contentsOf: segment.sparse.values)
        }
        return all
    }

    /// Calls `body` with every registered object (no array of them made).
    func forEachObject(_ body: (ManagedObject) -> Void) {
        for segment in segments {
            for case let object? in segment.dense { body(object) }
            for object in segment.sparse.values { body(object) }
        }
    }

    /// Whether some registered object satisfies `predicate`.
    func containsObject(where predicate: (ManagedObject) -> Bool) -> Bool {
        segments.contains { segment in
            segment.dense.contains { $0.map(predicate) ?? false } || segment.sparse.values.contains(where: predicate)
        }
    }

    mutating func removeAll() {
        segments = []
        lastSegment = 0
        count = 0
    }

    /// Removes the objects that nothing but the table references and that `isReleasable`
    /// accepts. Uniqueness is checked in place: copying an object out would add a reference.
    mutating func removeUnreferenced(where isReleasable: (ManagedObject) -> Bool) {
        for index in segments.indices {
            var removed = 0
            for key in segments[index].dense.indices where isKnownUniquelyReferenced(&segments[index].dense[key]) {
                guard let object = segments[index].dense[key], isReleasable(object) else { continue }
                segments[index].dense[key] = nil
                removed += 1
            }
            var sparseRemoved: [SparseKey] = []
            var position = segments[index].sparse.values.startIndex
            while position != segments[index].sparse.values.endIndex {
                if isKnownUniquelyReferenced(&segments[index].sparse.values[position]), isReleasable(segments[index].sparse.values[position]) {
                    sparseRemoved.append(segments[index].sparse.keys[position])
                }
                segments[index].sparse.values.formIndex(after: &position)
            }
            for key in sparseRemoved { segments[index].sparse[key] = nil }
            segments[index].count -= removed + sparseRemoved.count
            count -= removed + sparseRemoved.count
        }
    }

    /// Removes the objects among `ids` that nothing but the table references and that
    /// `isReleasable` accepts (checked in place, as above).
    mutating func removeUnreferenced(_ ids: [ManagedObjectID], where isReleasable: (ManagedObject) -> Bool) {
        for id in ids {
            guard let index = findSegment(for: id.space) else { continue }
            let key = id.key
            let unique: Bool
            if let slot = segments[index].slot(key) {
                unique = segments[index].dense[slot] != nil && isKnownUniquelyReferenced(&segments[index].dense[slot])
            } else if let position = segments[index].sparse.index(forKey: SparseKey(key)) {
                unique = isKnownUniquelyReferenced(&segments[index].sparse.values[position])
            } else {
                unique = false
            }
            guard unique, let object = segments[index][key], isReleasable(object) else { continue }
            count += segments[index].set(nil, at: key)
        }
    }

    /// A key of the sparse map, hashed by mixing its bits (``HashMixing``) rather than through a
    /// `Hasher`: a context holding objects of scattered keys (a query's results, a batched
    /// iteration's window) looks each fetched row up here.
    private struct SparseKey: Hashable {
        let key: Int64

        init(_ key: Int64) { self.key = key }

        func hash(into hasher: inout Hasher) { hasher.combine(key) }
        func _rawHashValue(seed: Int) -> Int { HashMixing.mix(Int(truncatingIfNeeded: key), seed: seed) }
    }
}
