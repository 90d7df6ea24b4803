import Foundation
import StoreCore

/// A SQL store as the shared store logic sees it: its schema, row reader and compiler, and what
/// its driver supplies — connections (``SQLConnection``) handed out for reading, and the few
/// writes each engine does its own way. Everything else a SQL store does — fetching, faulting,
/// prefetching, saving changes (``SQLChangeWriter``), naming the object a uniqueness violation
/// collides with, persistent history, batch requests — is written once, in extensions of this
/// protocol, whose public methods are the stores' `PersistentStore` methods.
///
/// SQLite's store is `SQLiteStore`, PostgreSQL's `PostgresStore`.
///
/// For example, a driver's store declares what the shared logic needs and gets fetching:
///
/// ```swift
/// extension SQLiteStore: SQLStore {
///     package func isUniqueViolation(_ error: any Error) -> Bool { (error as? SQLiteError)?.isUniqueViolation == true }
///     …
/// }
/// let posts = try store.execute(StoreFetchRequest(entityName: "Post"))   // SQLStore+Fetching
/// ```
package protocol SQLStore: PersistentHistoryStore, ObjectIDListFetching, KnownRowsFetching, ValueListFetching, NewObjectRunSaving, Sendable {
    associatedtype Connection: SQLConnection
    /// What holds a pinned query generation's connection (``SQLGenerationView``).
    associatedtype GenerationPin: Sendable

    var model: ManagedObjectModel { get }
    var schema: SQLSchema { get }
    var rows: RowReader { get }
    var compiler: SQLCompiler { get }
    /// Where prefetched rows wait for their faults.
    var prefetched: PrefetchCache { get }
    /// Whether this thread reads in a pinned query generation, whose rows stay out of the
    /// prefetch cache every context shares.
    var isReadingPinnedGeneration: Bool { get }

    /// Runs `body` on a connection for reading (the pinned generation's, when there is one).
    func read<T>(_ body: (Connection) throws -> T) throws -> T
    /// Runs `body` with this thread's reads going to the pinned generation's connection.
    func reading<T>(pinnedTo pin: GenerationPin, _ body: () throws -> T) throws -> T
    /// Runs `body` on a connection whose statements all see one state of the database.
    func readConsistently<T>(_ body: (Connection) throws -> T) throws -> T
    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    func write<T>(_ body: (Connection) throws -> T) throws -> T
    /// Reads a value of an attribute that allows external storage as the column holds it
    /// (`nil`: the column holds the bytes).
    var externalBinaryReader: (@Sendable (Data) throws -> Data)? { get }
    /// Whether `error`, thrown by a statement, says a uniqueness constraint was broken.
    func isUniqueViolation(_ error: any Error) -> Bool
    /// Inserts `count` rows into `table`: `row(i, &values)` appends the values of row `i`
    /// (`Z_PK`, `Z_ENT`, then the table's columns in order) to `values`, so that a driver binds
    /// them as they come, one row or one statement's rows at a time, without a copy of them all.
    func insert(into table: EntityTable, count: Int, on connection: Connection, row: (_ index: Int, _ values: inout [SQLValue]) throws -> Void) throws
    /// Inserts the rows of a batch insert, recording them in `history`, noting files in `files`.
    func insert(
        _ insert: StoreBatchRequest.Insert, history: inout SQLHistoryWriter<Self>?, wantsObjectIDs: Bool, on connection: Connection, files: SQLWriteFiles
    ) throws -> StoreBatchResult
    /// Sets a save's writer up for what the store keeps outside the database (nothing by default).
    func prepare(_ writer: inout SQLChangeWriter<Self>, on connection: Connection, files: SQLWriteFiles)
    /// Sets a batch delete up for what the store keeps outside the database (nothing by default).
    func prepare(_ deleter: inout SQLBatchDeleter<Self>, on connection: Connection, files: SQLWriteFiles)
    /// Tells other processes, inside the write's transaction, that it is committing (nothing by
    /// default: SQLite's readers see the file change).
    func announceCommit(on connection: Connection) throws
    /// Writes the metadata to `Z_METADATA`, inside a write transaction.
    func writeMetadata(_ metadata: StoreMetadata, on connection: Connection) throws
    /// Keeps the metadata just written as the store's ``PersistentStore/metadata``.
    func didWriteMetadata(_ metadata: StoreMetadata)
    /// Whether saves record persistent history (the `persistentHistoryTracking` option).
    var isHistoryTrackingEnabled: Bool { get }
    /// Whether the history tables are there (a read-only store may have none).
    var hasHistoryTables: Bool { get }
    /// Whether the table of history deletions (``SQLHistoryTables/purges``) is there: a store
    /// written before Stowage recorded them, opened read-only, has none.
    var hasHistoryPurgeTable: Bool { get }
    /// Whether `Z_HISTORYCHANGE` has the column of change ranges (`ZLASTENTITYPK`): a store
    /// written before Stowage recorded ranges, opened read-only, has none (all its rows are one
    /// object each).
    var hasHistoryChangeRanges: Bool { get }
    /// The largest change ID given out so far (``SQLHistoryTables/changes``' key sequence), read
    /// under the history lock: a range of changes takes the IDs after it explicitly.
    func lastHistoryChangeID(on connection: Connection) throws -> Int64
    /// Moves the change key sequence to `id` after IDs up to it were taken explicitly (nothing
    /// where the database follows explicit keys itself, as SQLite's `AUTOINCREMENT` does).
    func historyChangeIDsTaken(through id: Int64, on connection: Connection) throws
    /// The query of the number of the newest history transaction others can see.
    var lastHistoryTransactionQuery: String { get }
    /// Takes whatever makes history transactions commit in the order of their numbers, until the
    /// transaction ends (nothing where writers are already serialized, as in SQLite).
    func lockHistory(on connection: Connection) throws
}

extension SQLStore {
    package var dialect: any SQLDialect { schema.dialect }
    package func lockHistory(on connection: Connection) throws {}
    package func historyChangeIDsTaken(through id: Int64, on connection: Connection) throws {}
    package func prepare(_ writer: inout SQLChangeWriter<Self>, on connection: Connection, files: SQLWriteFiles) {}
    package func prepare(_ deleter: inout SQLBatchDeleter<Self>, on connection: Connection, files: SQLWriteFiles) {}
    package func announceCommit(on connection: Connection) throws {}
}

/// What a driver's opener found (or made) when a SQL store opened: the layout of its model in
/// the database, and the metadata from `Z_METADATA`.
package struct SQLOpenedStore {
    package let schema: SQLSchema
    package let metadata: StoreMetadata

    package init(schema: SQLSchema, metadata: StoreMetadata) {
        self.schema = schema
        self.metadata = metadata
    }
}
