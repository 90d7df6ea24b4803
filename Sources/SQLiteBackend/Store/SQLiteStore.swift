import Foundation
import StoreCore
import StoreSQL
#if !STOWAGE_SANITIZER_LOCKS  // the ThreadSanitizer build (.ci/run) uses StoreCore's sanitizer-visible Mutex
import Synchronization
#endif

/// The SQLite store: objects in a SQLite database laid out as Core Data lays it out, fetched
/// with SQL and loaded only as far as they are touched (a partial graph).
///
/// The database runs in WAL mode with one writer connection and a pool of readers, so fetches
/// on background contexts do not wait for a long save. A URL of `/dev/null` opens a private
/// in-memory database. Set `STOWAGE_SQL_DEBUG=1…4` to log the SQL. docs/sqlite-layout.md
/// describes the tables.
///
/// For example:
///
/// ```swift
/// SQLiteStore.register()          // done for you by `import Stowage`
/// var description = PersistentStoreDescription(url: URL(fileURLWithPath: "Blog.sqlite"))
/// description.setSQLitePragma("synchronous", "FULL")
/// container.persistentStoreDescriptions = [description]
/// try container.loadPersistentStores()
/// ```
public final class SQLiteStore: PersistentStore {
    /// The store's UUID, as recorded in its `Z_METADATA` table (Core Data's `NSStoreUUIDKey`).
    public let identifier: String
    /// Always `.sqlite`.
    public let type: PersistentStoreType = .sqlite
    /// The database file's URL (`/dev/null` for a private in-memory database); never `nil`.
    public let url: URL?
    /// The configuration named by the store's description (`nil`: every entity).
    public let configurationName: String?
    /// Whether the description asked for read-only; saves and metadata changes then throw `readOnly`.
    public let isReadOnly: Bool
    /// Whether saves and batch requests are recorded as persistent history.
    public let isHistoryTrackingEnabled: Bool
    /// Whether the file has history tables (a read-only store with tracking on may not).
    package let hasHistoryTables: Bool
    /// Whether the file records history deletions (`Z_HISTORYPURGE`; an older file opened
    /// read-only may not).
    package let hasHistoryPurgeTable: Bool
    /// Whether `Z_HISTORYCHANGE` records ranges of changes (`ZLASTENTITYPK`; an older file opened
    /// read-only may not).
    package let hasHistoryChangeRanges: Bool

    package let model: ManagedObjectModel
    package let schema: SQLSchema
    package let compiler: SQLCompiler
    let pool: SQLiteConnectionPool
    package let rows: RowReader
    let externalStorage: ExternalBinaryStorage?
    /// Each entity's INSERT statement by entity number, built once.
    let insertSQL: [Int64: String]
    private let storedMetadata: Mutex<StoreMetadata>
    /// Rows loaded by prefetching, handed out once to the faults that ask for them.
    package let prefetched = PrefetchCache()
    /// The number of queries run so far, for tests that check how lazily faults fire.
    var queryCount: Int { pool.log.queries.value }

    /// Opens (or creates) the store a description names.
    ///
    /// - Throws: ``/StoreCore/StoreError`` when the file is not a SQLite database, is damaged, or holds a
    ///   store whose model does not match; the file is left untouched.
    public init(_ request: PersistentStoreLoadRequest) throws {
        let description = request.description
        _ = try request.model.entities(forConfiguration: description.configuration)
        guard let url = description.url else {
            throw StoreError(.invalidOption, "a SQLite store needs a URL (use /dev/null for a private in-memory database)")
        }
        self.url = url
        model = request.model
        configurationName = description.configuration
        isReadOnly = description.isReadOnly
        isHistoryTrackingEnabled = description.isHistoryTrackingEnabled
        let inMemory = url.path == "/dev/null"
        let options = try SQLiteStoreOptions(description)
        if !inMemory { try Self.checkIsDatabase(url) }
        do {
            pool = try SQLiteConnectionPool(path: inMemory ? ":memory:" : url.path, configuration: options.poolConfiguration(inMemory: inMemory))
            let opened = try SQLiteStoreOpener(pool: pool, model: model, url: url, readOnly: isReadOnly).open()
            // Only now that the store accepted the file may the file change (WAL is in its header).
            try pool.setJournalMode()
            schema = opened.schema
            storedMetadata = Mutex(opened.metadata)
            identifier = opened.metadata.storeUUID
            if isHistoryTrackingEnabled && !isReadOnly {
                try pool.write { connection in try connection.transaction { try SQLiteHistoryTables.create(on: connection) } }
            }
            (hasHistoryTables, hasHistoryPurgeTable, hasHistoryChangeRanges) = try pool.read {
                (try SQLiteHistoryTables.exist(on: $0), try SQLiteHistoryTables.purgesExist(on: $0), try SQLiteHistoryTables.rangesExist(on: $0))
            }
        } catch let error as SQLiteError {
            throw StoreError(error.isCorruption ? .corrupt : .io, url: url, "cannot open the SQLite store: \(error)", underlying: error)
        }
        compiler = SQLCompiler(schema: schema, model: model)
        rows = RowReader(schema: schema, model: model, storeIdentifier: identifier)
        insertSQL = Dictionary(schema.tables.values.map { ($0.number, $0.insertSQL) }) { first, _ in first }
        externalStorage = inMemory ? nil : ExternalBinaryStorage(storeURL: url, threshold: options.externalStorageThreshold)
        try runLoadMaintenance(description)
    }

    /// Registers the SQLite store type (``/StoreCore/PersistentStoreType/sqlite``), its metadata reader,
    /// its migrator (``SQLiteStoreMigrator``) and its file operations (replacing — an online backup — and
    /// destroying store files).
    public static func register() {
        PersistentStoreRegistry.register(.sqlite) { try SQLiteStore($0) }
        PersistentStoreRegistry.registerMigrator(SQLiteStoreMigrator(), for: .sqlite)
        PersistentStoreRegistry.registerMetadataReader(for: .sqlite) { try SQLiteMetadataReader.metadata(at: $0) }
        PersistentStoreRegistry.registerFileOperations(SQLiteStoreFiles(), for: .sqlite)
    }

    /// Refuses a file that exists, is not empty and does not start with SQLite's header.
    private static func checkIsDatabase(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let header = try SQLiteFileHeader.read(at: url)
        if header.isEmpty { return }
        guard SQLiteFileHeader.isDatabase(header) else {
            throw StoreError(.corrupt, url: url, "the file is not a SQLite database; it was left untouched")
        }
    }

    /// The metadata read from `Z_METADATA` when the store opened, or last set through `setMetadata(_:)`.
    public var metadata: StoreMetadata { storedMetadata.withLock { $0 } }

    /// Closes the pool's idle reader connections; the writer closes when the store is released.
    public func unload() throws {
        pool.close()
    }

    /// Runs `body`, turning SQLite's errors into store errors.
    func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            if error.isBusy {
                throw StoreError(.io, url: url, "the database is locked by another connection; gave up after the busy timeout (\(error))", underlying: error)
            }
            throw StoreError(error.isCorruption ? .corrupt : .io, url: url, error.description, underlying: error)
        }
    }

    /// Runs a read on a pooled reader, in one read transaction.
    package func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try sqlite { try pool.read(body) }
    }

    /// Runs `body` in a transaction on the writer connection.
    package func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try sqlite { try pool.write { connection in try connection.transaction { try body(connection) } } }
    }
}

/// SQLite as a driver of the shared SQL store (``StoreSQL/SQLStore``).
extension SQLiteStore: SQLStore {
    /// A read already runs in one read transaction.
    package func readConsistently<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try read(body) }

    package var isReadingPinnedGeneration: Bool { SQLiteConnectionPool.pinned != nil }

    /// The last number `AUTOINCREMENT` handed out, which deleting history does not take back.
    package var lastHistoryTransactionQuery: String {
        "SELECT seq FROM sqlite_sequence WHERE name = '\(SQLHistoryTables.transactions)'"
    }

    /// The last change ID `AUTOINCREMENT` handed out or an explicit key took (SQLite keeps
    /// `sqlite_sequence` at the largest key ever inserted, so nothing needs moving afterwards).
    package func lastHistoryChangeID(on connection: SQLiteConnection) throws -> Int64 {
        let value = try connection.scalar("SELECT seq FROM sqlite_sequence WHERE name = '\(SQLHistoryTables.changes)'", [])
        guard case .integer(let id)? = value else { return 0 }
        return id
    }

    package func writeMetadata(_ metadata: StoreMetadata, on connection: SQLiteConnection) throws {
        try SQLiteStoreOpener.writeMetadata(metadata, on: connection)
    }

    package func didWriteMetadata(_ metadata: StoreMetadata) { storedMetadata.withLock { $0 = metadata } }

    /// The column holds a marker byte, then the bytes or the name of their file (``ExternalBinaryStorage``).
    package var externalBinaryReader: (@Sendable (Data) throws -> Data)? {
        let storage = externalStorage
        return { try ExternalBinaryStorage.read($0, from: storage) }
    }

    package func isUniqueViolation(_ error: any Error) -> Bool { (error as? SQLiteError)?.isUniqueViolation == true }

    /// One prepared statement per table, bound and stepped once per row.
    package func insert(
        into table: EntityTable, count: Int, on connection: SQLiteConnection, row: (_ index: Int, _ values: inout [SQLValue]) throws -> Void
    ) throws {
        let sql = insertSQL[table.number] ?? table.insertSQL
        let statement = try connection.cachedStatement(sql)
        connection.log.statement(sql, [])
        defer { statement.reset() }
        var values: [SQLValue] = []
        values.reserveCapacity(table.columns.count + 2)
        for index in 0..<count {
            values.removeAll(keepingCapacity: true)
            try row(index, &values)
            try statement.bind(values)
            while try statement.step() {}
        }
    }
}
