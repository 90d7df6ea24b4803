/// The `Set<ManagedObject>`s a context notification carries under its object keys.
struct NotificationObjectSets {
    var inserted: Set<ManagedObject> = []
    var updated: Set<ManagedObject> = []
    var deleted: Set<ManagedObject> = []
    var refreshed: Set<ManagedObject> = []
    var invalidated: Set<ManagedObject> = []
}

/// The sets a save's objects-did-change notification carried, kept until its will-save and
/// did-save, which carry the same sets rather than making them again when the objects did not
/// change in between.
///
/// A save posts objects-did-change (the changes not yet reported, usually all of them), then
/// will-save and did-save (everything saved); objects-did-change and did-save carry a
/// `Set<ManagedObject>` per kind, and for a large save making each set — hashing and retaining
/// every object — was a fifth of the save; all three carry the objects' IDs. A set is kept only
/// when it holds exactly the members of the context's list of that kind, together with the list's
/// ``ChangedObjectList/generation``; will-save and did-save use it only if the list's generation
/// is the same when they are posted or the save takes its objects (nothing joined or left the list
/// in between). Updated and deleted objects keep their IDs through a save, so their ID sets serve
/// did-save too (a save of very many updates lets their set go after will-save rather than hold
/// it through its peak: ``ManagedObjectContext/updatedIDSetReuseLimit``); inserted objects get
/// permanent IDs, so their kept IDs serve will-save only, and only if no object was given another
/// ID since (``ManagedObjectContext/reassignments``). Kept
/// only while one `save()` runs.
struct SaveNotificationSets {
    struct Kept {
        let objects: Set<ManagedObject>
        var objectIDs: LazyObjectIDSet
        let generation: Int
        /// The context's ``ManagedObjectContext/reassignments`` when the IDs were taken.
        let reassignments: Int

        /// The kept sets, if the list they were made from is at `generation` still.
        func reusable(at generation: Int) -> Kept? { generation == self.generation ? self : nil }

        /// The kept IDs, if the list is at `generation` still and no object was given another ID since.
        func reusableIDs(at generation: Int, reassignments: Int) -> LazyObjectIDSet? {
            generation == self.generation && reassignments == self.reassignments ? objectIDs : nil
        }
    }

    var inserted: Kept?
    var updated: Kept?
    var deleted: Kept?
}

/// The ``ChangedObjectList/generation``s of a context's inserted, updated and deleted lists at one moment.
struct ChangeListGenerations: Equatable {
    let inserted: Int
    let updated: Int
    let deleted: Int
}
