import Foundation

/// A batch request as a store receives it: checked rows, update expressions or the objects to
/// delete, with the context's name and author for persistent history.
///
/// Stores that can do the work themselves (SQLite, in SQL) implement
/// ``PersistentStore/execute(_:)-(StoreBatchRequest)``; the default reads and saves through the
/// store's other methods (``BatchExecutor``), so every store answers batch requests.
///
/// For example, a store handing deletes to the default and doing the rest itself:
///
/// ```swift
/// func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
///     if case .delete = request.operation { return try BatchExecutor(store: self, request: request).run() }
///     …
/// }
/// ```
public struct StoreBatchRequest {
    /// What the batch request does: insert rows, update objects or delete objects.
    public enum Operation {
        /// Insert checked rows (from a `BatchInsertRequest`).
        case insert(Insert)
        /// Update the objects a `BatchUpdateRequest` selects.
        case update(BatchUpdateRequest)
        /// Delete the objects a `BatchDeleteRequest` targets, applying delete rules.
        case delete(BatchDeleteRequest.Target)
    }

    /// Rows to insert, already checked against the model.
    public struct Insert {
        /// The name of the entity the rows are inserted into.
        public var entityName: String
        /// The stored attributes every row gives a value for, in row order.
        public var attributes: [AttributeDescription]
        /// The next row (values in ``attributes`` order, converted and validated), `nil` after
        /// the last. It throws for a row that breaks the model; the store then writes nothing.
        public var nextRow: () throws -> [StoreValue]?
        /// What a row whose uniquely constrained values are already stored does.
        public var onConflict: ConflictResolution

        /// Rows for `entityName`, each giving values for `attributes` in order, read one at a time
        /// from `nextRow`.
        public init(entityName: String, attributes: [AttributeDescription], onConflict: ConflictResolution, nextRow: @escaping () throws -> [StoreValue]?) {
            self.entityName = entityName
            self.attributes = attributes
            self.onConflict = onConflict
            self.nextRow = nextRow
        }
    }

    /// What a batch insert does with a row that breaks a uniqueness constraint.
    public enum ConflictResolution: Hashable, Sendable {
        /// Fail the request (``MergePolicy/error``).
        case fail
        /// Update the stored object with the row's values (object-trump and overwrite policies).
        case updateStoredObject
        /// Keep the stored object as it is (store-trump and rollback policies).
        case keepStoredObject

        /// The resolution a context's merge policy calls for: `.fail` under `error`,
        /// `.updateStoredObject` under the object-trump and overwrite policies, `.keepStoredObject`
        /// under store-trump and rollback.
        public init(_ policy: MergePolicy) {
            switch policy.mergeType {
            case .error: self = .fail
            case .mergeByPropertyObjectTrump, .overwrite: self = .updateStoredObject
            case .mergeByPropertyStoreTrump, .rollback: self = .keepStoredObject
            }
        }
    }

    /// What to do: the rows to insert, the update, or the objects to delete.
    public var operation: Operation
    /// The model the request was checked against (the coordinator's).
    public var model: ManagedObjectModel
    /// Whether the result must list the objects changed (else counts are enough).
    public var wantsObjectIDs: Bool
    /// The executing context's name, recorded in persistent history as the transaction's `contextName`.
    public var contextName: String?
    /// The executing context's `transactionAuthor`, recorded in persistent history as the
    /// transaction's author.
    public var transactionAuthor: String?

    /// A batch request for a store, as a context's `execute(_:)` builds it from a batch insert,
    /// update or delete request.
    public init(_ operation: Operation, model: ManagedObjectModel, wantsObjectIDs: Bool, contextName: String? = nil, transactionAuthor: String? = nil) {
        self.operation = operation
        self.model = model
        self.wantsObjectIDs = wantsObjectIDs
        self.contextName = contextName
        self.transactionAuthor = transactionAuthor
    }
}

/// What a store did for a batch request: how many objects the request inserted, updated or
/// deleted, and — when asked for — their IDs, with the objects changed by delete rules.
///
/// For example:
///
/// ```swift
/// let result = try store.execute(request)
/// print(result.count, result.deleted.count)
/// ```
public struct StoreBatchResult: Sendable, Hashable {
    /// How many objects the request itself inserted (or upserted), updated or deleted (cascades included).
    public var count = 0
    /// The objects inserted (filled when the request wants object IDs).
    public var inserted: [ManagedObjectID] = []
    /// The objects updated: by an update or an upsert, or by a delete's nullify rules (filled when
    /// the request wants object IDs).
    public var updated: [ManagedObjectID] = []
    /// The objects deleted, cascades included (filled when the request wants object IDs).
    public var deleted: [ManagedObjectID] = []

    /// A result with this count and no IDs.
    public init(count: Int = 0) {
        self.count = count
    }
}
