import Foundation

/// Inserts many objects straight into a store, without managed objects or a context save — Core
/// Data's `NSBatchInsertRequest`. Rows come from an array of dictionaries, from a handler that
/// fills one dictionary (or one managed object) per call until it returns `true` to stop.
///
/// Every row is checked against the model first: values converted to their attribute's type,
/// defaults applied, required values and validation rules enforced. One bad row fails the whole
/// request with an ``ObjectValidationError`` naming the row, and nothing is written.
///
/// On an entity with a uniqueness constraint, a row whose constrained values are already stored
/// updates that object (keeping its ID) when the executing context's merge policy is
/// ``MergePolicy/mergeByPropertyObjectTrump`` or ``MergePolicy/overwrite``, keeps the stored object
/// under ``MergePolicy/mergeByPropertyStoreTrump`` or ``MergePolicy/rollback``, and fails the
/// request under ``MergePolicy/error``.
///
/// For example:
///
/// ```swift
/// var request = BatchInsertRequest(entityName: "Quake", objects: [["code": "ci1", "magnitude": 2.5]])
/// request.resultType = .objectIDs
/// let ids = try context.execute(request).objectIDs
///
/// var n = 0
/// let streamed = BatchInsertRequest(entityName: "Quake") { (row: inout [String: Any]) in
///     n += 1
///     row = ["code": "q\(n)", "magnitude": Double(n % 10)]
///     return n == 1_000_000          // true: stop (this row is not inserted)
/// }
/// ```
public struct BatchInsertRequest {
    /// Where the rows come from.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Quake", objects: [["code": "ci1", "magnitude": 2.5]])
    /// if case .objects(let rows) = request.source { print(rows.count) }   // 1
    /// ```
    public enum Source {
        /// One dictionary per row, attribute values by name — as in
        /// `NSBatchInsertRequest(entityName:objects:)`.
        case objects([[String: Any]])
        /// Called for each row; sets the row's values and returns `true` to stop (that call's row is not inserted).
        case dictionaryHandler((inout [String: Any]) -> Bool)
        /// Called for each row with a fresh object outside any context; sets its values and returns `true` to stop.
        case managedObjectHandler((ManagedObject) -> Bool)
    }

    /// The name of the entity whose objects are inserted.
    public var entityName: String
    /// Where the rows come from: an array of dictionaries or a handler called once per row.
    public var source: Source
    /// What executing the request returns — like Core Data's `NSBatchInsertRequest.resultType`;
    /// `.objectIDs` lists the objects inserted and those updated by an upsert. `.statusOnly` by default.
    public var resultType: BatchResultType = .statusOnly

    /// Inserts one object per dictionary — Core Data's `NSBatchInsertRequest(entityName:objects:)`.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.source = .objects(objects)
    }

    /// Inserts the rows a handler fills, one dictionary per call, until it returns `true` — Core
    /// Data's `NSBatchInsertRequest(entityName:dictionaryHandler:)`.
    public init(entityName: String, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        self.entityName = entityName
        self.source = .dictionaryHandler(dictionaryHandler)
    }

    /// Inserts the rows a handler sets on a fresh managed object, one per call, until it returns
    /// `true` — Core Data's `NSBatchInsertRequest(entityName:managedObjectHandler:)`.
    public init(entityName: String, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.entityName = entityName
        self.source = .managedObjectHandler(managedObjectHandler)
    }
}
