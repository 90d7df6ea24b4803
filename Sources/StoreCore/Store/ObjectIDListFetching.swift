/// A store that answers an object-ID fetch as a ``CompactObjectIDList``, reading each row's key
/// and entity straight into it — no `ManagedObjectID` per row, so the IDs of a batched fetch of
/// a million rows take 8 MB while they are read, not 16 MB and then 8 MB more.
///
/// The SQL stores conform; a context asks through its coordinator when the fetched entity lives
/// in one such store, and otherwise compacts the IDs ``PersistentStore/execute(_:)`` returns.
///
/// For example:
///
/// ```swift
/// var request = StoreFetchRequest(entityName: "Post", resultType: .managedObjectID)
/// let ids = try store.objectIDList(request)   // ids[0] is the first post's ID
/// ```
package protocol ObjectIDListFetching: PersistentStore {
    /// The IDs `request` (an object-ID fetch) matches, in order.
    ///
    /// - Throws: what ``PersistentStore/execute(_:)`` throws for the request.
    func objectIDList(_ request: StoreFetchRequest) throws -> CompactObjectIDList
}
