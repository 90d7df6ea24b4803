/// The objects a context inserted, updated or deleted, in the order they joined the list, with
/// O(1) membership, insertion and removal (each object records its own position).
///
/// An object is in at most one of a context's three lists at a time, so one position field on
/// the object serves all three; membership is checked by identity at that position.
struct ChangedObjectList {
    private var slots: [ManagedObject?] = []
    private(set) var count = 0
    /// Changes with every insertion and removal: two equal readings mean the same members.
    private(set) var generation = 0
    /// Whether an object of an entity with relationships joined since the list was last emptied:
    /// when not, a save need not walk the objects to resolve relationships held as IDs (one pass
    /// less over objects that are cold in a large save), as it learns while each object joins.
    private(set) var mayHoldRelationships = false

    var isEmpty: Bool { count == 0 }

    /// The objects, in the order they joined (an array of exactly their number: grown as it
    /// filled, a save's list of 100,000 new objects took 1.3 MB rather than 0.8).
    var values: [ManagedObject] { values { _ in } }

    /// The objects, in the order they joined, each handed to `visit` as it is taken (one pass
    /// over objects that are cold in a large save, rather than two).
    func values(_ visit: (ManagedObject) -> Void) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(count)
        for case let object? in slots {
            visit(object)
            objects.append(object)
        }
        return objects
    }

    /// Calls `body` with each object, in the order they joined (without an array of them).
    func forEachObject(_ body: (ManagedObject) throws -> Void) rethrows {
        for case let object? in slots { try body(object) }
    }

    /// Whether an object of the list satisfies `predicate` (without an array of the objects).
    func containsObject(where predicate: (ManagedObject) -> Bool) -> Bool {
        slots.contains { $0.map(predicate) ?? false }
    }

    func contains(_ object: ManagedObject) -> Bool {
        let position = object.changeListPosition
        return position >= 0 && position < slots.count && slots[position] === object
    }

    mutating func insert(_ object: ManagedObject) {
        guard !contains(object) else { return }
        object.changeListPosition = slots.count
        slots.append(object)
        if !mayHoldRelationships && object.entity.layout.hasRelationships { mayHoldRelationships = true }
        count += 1
        generation &+= 1
    }

    mutating func remove(_ object: ManagedObject) {
        guard contains(object) else { return }
        slots[object.changeListPosition] = nil
        object.changeListPosition = -1
        count -= 1
        generation &+= 1
        if slots.count > 64 && count < slots.count / 2 { compact() }
    }

    mutating func removeAll() {
        for object in slots { object?.changeListPosition = -1 }
        letGoOfAll()
    }

    /// Lets go of `object`'s slot, keeping the list's count and generation: for a save that empties
    /// its lists, releasing each object while it has it at hand (a release of an object no longer in
    /// the processor's caches costs a miss) and then the lists whole (``letGoOfAll()``).
    mutating func letGoOfSlot(of object: ManagedObject) {
        guard contains(object) else { return }
        slots[object.changeListPosition] = nil
        object.changeListPosition = -1
    }

    /// Empties the list without walking it, for a caller that reset each member's
    /// `changeListPosition` already (a stale position is harmless: membership is checked by
    /// identity at that position, but the walk is one more pass over cold objects).
    mutating func letGoOfAll() {
        slots = []
        count = 0
        mayHoldRelationships = false
        generation &+= 1
    }

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        for (position, object) in slots.enumerated() { object?.changeListPosition = position }
    }
}
