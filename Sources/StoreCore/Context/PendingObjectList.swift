/// The objects a context inserted, or deleted, since its last objects-did-change, in the order
/// they were listed.
///
/// A list rather than a set: a large insert or delete appends each object without hashing it or
/// growing a table (growing the set was nine tenths of `delete` for 100,000 objects, and a twentieth
/// of inserting and saving them), and the set the notification carries is made once, at its full
/// size, walking the objects in the order they were listed (mostly the order they lie in memory)
/// rather than in hash order. An object may be listed twice (deleted, inserted again and deleted
/// again; the notification's set holds it once), and an object that left the list's kind is not
/// taken out: the reader asks each object's state (an inserted object deleted again is no longer
/// `isInserted`).
///
/// For example (inside a context):
///
/// ```swift
/// pendingChanges.deleted.insert(object)
/// for object in pendingChanges.deleted where object.state.isDeleted { … }
/// ```
struct PendingObjectList: Sequence {
    private var objects: [ManagedObject] = []

    var isEmpty: Bool { objects.isEmpty }
    /// How many times an object was listed (an object may be listed more than once).
    var count: Int { objects.count }

    mutating func insert(_ object: ManagedObject) { objects.append(object) }

    func makeIterator() -> IndexingIterator<[ManagedObject]> { objects.makeIterator() }

    /// Calls `body` with each object listed, from the last to the first.
    func forEachFromLast(_ body: (ManagedObject) -> Void) {
        for object in objects.reversed() { body(object) }
    }

    /// Takes the last object listed: for a reader that lets go of each object while it has it at
    /// hand (letting go of the whole list afterwards is one more pass over objects cold by then).
    mutating func popLast() -> ManagedObject? { objects.popLast() }
}
