/// A store that finds the rows whose attribute holds one of a list of values, taking the values
/// as they are — no predicate of one constant per value to build, check and translate. A save
/// looks up the stored rows of a uniqueness constraint so, with 100,000 values in one request.
///
/// The SQL stores conform (the list is bound as one value where the dialect can,
/// StoreSQL's `SQLDialect.valueList`, and joined to the rows where it has a table of values,
/// `SQLDialect.valueTable`); a context asks through its coordinator when the entity
/// lives in one such store, and otherwise fetches with the predicate `key IN {values…}`.
///
/// For example:
///
/// ```swift
/// let rows = try store.snapshots(ofEntity: "Item", whose: "code", isAmong: [.string("c1"), .string("c2")])
/// ```
package protocol ValueListFetching: PersistentStore {
    /// The rows of `entityName` and its sub-entities whose `key` holds one of `values`, in no
    /// particular order: what ``PersistentStore/execute(_:)`` returns for an object fetch of the
    /// entity with the predicate `key IN {values…}` — except that a row matched by a value
    /// listed twice may come twice (SQLite joins a long list to the rows; pass distinct values).
    ///
    /// - Throws: what ``PersistentStore/execute(_:)`` throws for that request.
    func snapshots(ofEntity entityName: String, whose key: String, isAmong values: [StoreValue]) throws -> [StoreSnapshot]
}
