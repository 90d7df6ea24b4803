/// A store that takes a save's new objects as runs of one entity (``NewObjectRun``) and hands
/// their permanent IDs to the change set's maker as a ``CompactObjectIDList`` — a run of new keys
/// takes a few bytes, where an entity name and an ID per object took 32 bytes each beside every
/// object of a save of a million, at its peak.
///
/// The SQL stores conform; a coordinator with one such store saves through it, and otherwise
/// through ``PersistentStore/save(newObjectsOf:_:)``.
///
/// For example (inside a coordinator):
///
/// ```swift
/// let saved = try store.save(newObjectRuns: runs) { ids in makeChangeSet(permanentIDs: ids) }
/// ```
package protocol NewObjectRunSaving: PersistentStore {
    /// What ``PersistentStore/save(newObjectsOf:_:)`` does for the entity names the runs
    /// repeat (each run's `store` is this store's or `nil`), with the IDs as a compact list.
    func save(
        newObjectRuns runs: [NewObjectRun], _ makeChanges: (CompactObjectIDList) throws -> StoreChangeSet
    ) throws -> StoreChangeSet
}
