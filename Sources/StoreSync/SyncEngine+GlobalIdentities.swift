import StoreCore

extension SyncEngine {
    /// The global identity of every object of the store `context` works on (a local store or
    /// the server store) that has one, by object ID — to compare stores, or to name objects to
    /// systems outside. Call it on the context's queue; deleted objects are not left out by it
    /// (a fetch of the objects tells which are still there).
    ///
    /// A global identity is a UUID string, or for an object of an entity with no relationships
    /// that moved with many others, the UUID of its run and a number (`"…#17"`): treat it as an
    /// opaque string.
    ///
    /// For example:
    ///
    /// ```swift
    /// let context = container.newBackgroundContext()
    /// let identities = try context.performAndWait { try SyncEngine.globalIdentities(in: context) }
    /// ```
    public static func globalIdentities(in context: ManagedObjectContext) throws -> [ManagedObjectID: String] {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw SyncError(.storeNotReady, "the context has no persistent store coordinator")
        }
        let storeID = try SyncSession.storeIdentifier(of: coordinator, side: "context's")
        var result: [ManagedObjectID: String] = [:]
        for identity in try SyncIdentityMap(context: context, storeIdentifier: storeID).loadEverything() {
            result[ManagedObjectID(entityName: identity.object.entityName, storeIdentifier: storeID, primaryKey: identity.object.key)] = identity.globalID
        }
        return result
    }
}
