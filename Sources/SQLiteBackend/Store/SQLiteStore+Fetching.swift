import Foundation
import StoreCore
import StoreSQL

/// Fetching and faulting, written once for every SQL store (``StoreSQL/SQLStore``).
extension SQLiteStore {
    /// Compiles the request to SQL run in one read transaction on a pooled reader (prefetching included);
    /// batched or value-less object fetches return only IDs, faulted in later.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try runFetch(request) }

    /// A row prefetched for this object if one is waiting (handed out once), else the row read by `Z_PK`
    /// and `Z_ENT`; `nil` for another store's ID or a missing row.
    public func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? { try readSnapshot(for: objectID) }

    /// Snapshots of several objects, one query per table (batched fetches ask for a batch).
    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] { try readSnapshots(for: objectIDs) }

    /// The members of the to-many relationship read in one query (from its join table or the destination's
    /// foreign key), by position for ordered ones, else by key; empty for another store's ID.
    public func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        try readMembers(ofRelationship: name, of: objectID)
    }

    /// One query per entity among the owners.
    public func objectIDs(forRelationship name: String, ofObjects objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try readMembers(ofRelationship: name, ofObjects: objectIDs)
    }
}
