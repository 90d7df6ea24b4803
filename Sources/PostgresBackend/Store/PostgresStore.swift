#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL
import Synchronization

/// The PostgreSQL store: objects in a PostgreSQL database, laid out as Core Data lays out its
/// SQLite stores (`Z<ENTITY>` tables with `Z_PK`, `Z_ENT`, `Z_OPT`, join tables, `Z_PRIMARYKEY`,
/// `Z_METADATA`) in a schema of its own, fetched with SQL and loaded only as far as they are
/// touched — the same partial graph as the SQLite store, shared by every process and machine
/// that opens the same URL.
///
/// Saves run in one transaction each; `Z_OPT` versions make concurrent writers' conflicts merge
/// conflicts, `Z_PRIMARYKEY` rows (locked until commit) hand out keys that never collide, and
/// with ``/StoreCore/PersistentStoreOption/remoteChangeNotificationPost`` every commit reaches
/// the other coordinators through `LISTEN`/`NOTIFY`. docs/postgres.md tells the whole story.
///
/// For example:
///
/// ```swift
/// var description = PersistentStoreDescription(url: URL(string: "postgres://app@db.local/blog?schema=blog")!)
/// description.setOption(.integer(8), forKey: .postgresPoolSize)
/// container.persistentStoreDescriptions = [description]
/// try container.loadPersistentStores()
/// ```
public final class PostgresStore: PersistentStore {
    /// The store's UUID, as recorded in its `Z_METADATA` table (Core Data's `NSStoreUUIDKey`).
    public let identifier: String
    /// Always `.postgres`.
    public let type: PersistentStoreType = .postgres
    /// The `postgres://` URL the store was loaded from.
    public let url: URL?
    /// The configuration named by the store's description (`nil`: every entity).
    public let configurationName: String?
    /// Whether the description asked for read-only; saves and metadata changes then throw `readOnly`.
    public let isReadOnly: Bool
    /// Whether saves and batch requests are recorded as persistent history.
    public let isHistoryTrackingEnabled: Bool
    /// The PostgreSQL schema holding the store's tables.
    public let schemaName: String
    /// Whether the schema records history deletions (`Z_HISTORYPURGE`; a store made before
    /// Stowage recorded them, opened read-only, may not).
    package let hasHistoryPurgeTable: Bool
    /// Whether `Z_HISTORYCHANGE` records ranges of changes (`ZLASTENTITYPK`; an older store
    /// opened read-only may not).
    package let hasHistoryChangeRanges: Bool

    package let model: ManagedObjectModel
    package let schema: SQLSchema
    package let compiler: SQLCompiler
    let pool: PostgresSessionPool
    package let rows: RowReader
    /// Multi-row INSERT statements by entity number and row count, built once each.
    private let insertStatements = Mutex<[Int64: [Int: String]]>([:])
    private let storedMetadata: Mutex<StoreMetadata>
    /// The connection listening for other writers' commits, once a coordinator asked for them.
    let listenerState = Mutex<PostgresChangeListener?>(nil)
    /// Rows loaded by prefetching, handed out once to the faults that ask for them.
    package let prefetched = PrefetchCache()
    /// How many query generations are pinned now.
    let pinnedGenerations = Mutex(0)
    /// A save whose `COMMIT` may or may not have happened (``resolveLostCommit(_:_:)``).
    let unresolvedCommit = Mutex<Int64?>(nil)

    /// Connects to the server and opens (or creates) the store in its schema.
    ///
    /// - Throws: ``/StoreCore/StoreError`` when the server cannot be reached, the schema holds
    ///   something that is not a store, or a store whose model does not match (nothing is changed).
    public init(_ request: PersistentStoreLoadRequest) throws {
        let description = request.description
        _ = try request.model.entities(forConfiguration: description.configuration)
        let options = try PostgresStoreOptions(description)
        url = description.url
        model = request.model
        configurationName = description.configuration
        isReadOnly = description.isReadOnly
        isHistoryTrackingEnabled = description.isHistoryTrackingEnabled
        schemaName = options.schema
        pool = try PostgresSessionPool(options: options, log: .fromEnvironment)
        do {
            let opened = try PostgresStoreOpener(pool: pool, model: model, options: options, readOnly: isReadOnly,
                                                  history: isHistoryTrackingEnabled).open()
            schema = opened.schema
            storedMetadata = Mutex(opened.metadata)
            identifier = opened.metadata.storeUUID
            // A writable store with history has it: the opener creates what is missing.
            let purges = "\(options.schema).\(PostgresHistoryTables.purges)".lowercased()
            hasHistoryPurgeTable = try isHistoryTrackingEnabled && (!isReadOnly || pool.withConnection { connection in
                try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [.text(purges)]) == .integer(1)
            })
            // The column and its index come in one transaction: the index there means the column is.
            let ranges = "\(options.schema).\(SQLHistoryTables.rangeIndex)".lowercased()
            hasHistoryChangeRanges = try isHistoryTrackingEnabled && (!isReadOnly || pool.withConnection { connection in
                try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [.text(ranges)]) == .integer(1)
            })
        } catch {
            pool.close()
            throw Self.storeError(error, url: url)
        }
        compiler = SQLCompiler(schema: schema, model: model)
        rows = RowReader(schema: schema, model: model, storeIdentifier: identifier)
    }

    /// Registers the PostgreSQL store type (``/StoreCore/PersistentStoreType/postgres``), its
    /// metadata reader and its migrator (``PostgresStoreMigrator``).
    public static func register() {
        PersistentStoreRegistry.register(.postgres) { try PostgresStore($0) }
        PersistentStoreRegistry.registerMetadataReader(for: .postgres, options: { try PostgresStore.metadata(at: $0, options: $1) })
        PersistentStoreRegistry.registerMigrator(PostgresStoreMigrator(), for: .postgres)
    }

    /// The metadata of the store a URL (and a description's options, for the schema) names,
    /// read without opening the store.
    ///
    /// - Throws: ``/StoreCore/StoreError`` when the server cannot be reached or the schema holds no store.
    public static func metadata(at url: URL, options storeOptions: [PersistentStoreOption: StoreValue] = [:]) throws -> StoreMetadata {
        var description = PersistentStoreDescription(type: .postgres, url: url)
        description.options.merge(storeOptions) { $1 }
        var options = try PostgresStoreOptions(description)
        options.poolSize = 1
        let pool = try PostgresSessionPool(options: options, log: .fromEnvironment)
        defer { pool.close() }
        do {
            return try pool.withConnection { connection in
                guard try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [.text("\(options.schema).z_metadata")]) == .integer(1) else {
                    throw StoreError(.io, url: url, "there is no store in schema \(options.schema)")
                }
                return try PostgresStoreOpener.readMetadata(on: connection)
            }
        } catch {
            throw storeError(error, url: url)
        }
    }

    /// The metadata read from `Z_METADATA` when the store opened, or last set through `setMetadata(_:)`.
    public var metadata: StoreMetadata { storedMetadata.withLock { $0 } }

    /// Stops listening for other writers' commits and closes every pooled connection.
    public func unload() throws {
        stopListening()
        pool.close()
    }

    // MARK: Connections

    /// Runs a read of one statement on a pooled connection (a statement sees one committed state).
    package func read<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        if let pinned = PostgresPinnedReader.current, pinned.pool === pool { return try server { try pinned.use(body) } }
        return try server { try pool.withConnection(body) }
    }

    /// Runs a read of several statements on a pooled connection, in one read-only transaction,
    /// so they all see the same committed state.
    package func readConsistently<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        if let pinned = PostgresPinnedReader.current, pinned.pool === pool { return try server { try pinned.use(body) } }
        return try server { try pool.withConnection { connection in try connection.transaction("REPEATABLE READ READ ONLY") { try body(connection) } } }
    }

    /// Runs a write on a pooled connection, in one transaction; a connection lost after `COMMIT`
    /// was sent is resolved by asking the server (``resolveLostCommit(_:_:)``).
    package func write<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try checkEarlierCommit()
        return try server {
            try pool.withConnection { connection in try connection.transaction(resolveLostCommit: resolveLostCommit) { try body(connection) } }
        }
    }

    /// Runs `body`, turning the server's errors into store errors.
    func server<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw Self.storeError(error, url: url)
        }
    }

    static func storeError(_ error: any Error, url: URL?) -> any Error {
        guard let failure = error as? PostgresServerError else { return error }
        if failure.sqlState == "42883" {
            return FetchError(.unsupported, "the PostgreSQL store cannot run this request (CAST and FUNCTION of stored values are not supported on the server): \(failure.message)")
        }
        if failure.sqlState == "2201B" {
            return FetchError(.invalidRegularExpression, "the regular expression is not valid for PostgreSQL: \(failure.message)")
        }
        if failure.isConnectionLost {
            return StoreError(
                .serverUnavailable, url: url,
                "the connection to PostgreSQL was lost before the server answered; the call changed nothing, and the next one connects again (\(failure))",
                underlying: failure)
        }
        if failure.isRetryable {
            return StoreError(.io, url: url, "the server gave up the transaction because of a concurrent one; nothing was saved; try again (\(failure))", underlying: failure)
        }
        return StoreError(.io, url: url, "PostgreSQL: \(failure)", underlying: failure)
    }
}

/// PostgreSQL as a driver of the shared SQL store (``StoreSQL/SQLStore``).
extension PostgresStore: SQLStore {
    package var isReadingPinnedGeneration: Bool { PostgresPinnedReader.current?.pool === pool }

    /// The opener creates the history tables with the store when tracking is on.
    package var hasHistoryTables: Bool { isHistoryTrackingEnabled }

    /// The newest committed number: a sequence's last value may belong to a transaction not yet
    /// committed, whose changes a reader would then miss.
    package var lastHistoryTransactionQuery: String { "SELECT MAX(Z_PK) FROM \(SQLHistoryTables.transactions)" }

    /// Numbers are taken under a transaction-scoped advisory lock held until commit, so
    /// transactions become visible in the order of their numbers: a reader that saw number n
    /// never later finds a smaller one.
    package func lockHistory(on connection: PostgresSession) throws {
        try PostgresHistoryTables.lock(on: connection, schema: schemaName)
    }

    /// Takes the next value of the change key sequence and gives the one before it: under the
    /// history lock no other writer takes one meanwhile (one number may stay unused).
    package func lastHistoryChangeID(on connection: PostgresSession) throws -> Int64 {
        guard case .integer(let next)? = try connection.scalar("SELECT nextval(\(PostgresHistoryTables.changeSequence))", []) else {
            throw StoreError(.corrupt, url: url, "the history change sequence gave no number")
        }
        return next - 1
    }

    /// A sequence does not follow explicit keys: moved to the last one taken.
    package func historyChangeIDsTaken(through id: Int64, on connection: PostgresSession) throws {
        _ = try connection.scalar("SELECT setval(\(PostgresHistoryTables.changeSequence), $1)", [.integer(id)])
    }

    package func writeMetadata(_ metadata: StoreMetadata, on connection: PostgresSession) throws {
        try PostgresStoreOpener.writeMetadata(metadata, on: connection)
    }

    package func didWriteMetadata(_ metadata: StoreMetadata) { storedMetadata.withLock { $0 = metadata } }

    /// Binary values are kept in the row (`BYTEA`), whatever the attribute allows.
    package var externalBinaryReader: (@Sendable (Data) throws -> Data)? { nil }

    package func isUniqueViolation(_ error: any Error) -> Bool { (error as? PostgresServerError)?.isUniqueViolation == true }

    /// Streams the rows with `COPY` (``PostgresBatchInsert``).
    package func insert(
        _ insert: StoreBatchRequest.Insert, history: inout SQLHistoryWriter<PostgresStore>?, wantsObjectIDs: Bool, on connection: PostgresSession,
        files: SQLWriteFiles
    ) throws -> StoreBatchResult {
        var writer = PostgresBatchInsert(store: self, connection: connection, history: history, wantsObjectIDs: wantsObjectIDs)
        defer { history = writer.history }
        return try writer.write(insert)
    }

    /// As many rows per `INSERT` as PostgreSQL's 65,535 parameters allow (at most 1,000).
    package func insert(
        into table: EntityTable, count: Int, on connection: PostgresSession, row: (_ index: Int, _ values: inout [SQLValue]) throws -> Void
    ) throws {
        let width = table.columns.count + 2
        let rowsPerStatement = max(1, min(1000, 65_000 / width))
        for start in stride(from: 0, to: count, by: rowsPerStatement) {
            let end = min(start + rowsPerStatement, count)
            var bindings: [SQLValue] = []
            bindings.reserveCapacity((end - start) * width)
            for index in start..<end { try row(index, &bindings) }
            try connection.run(insertStatement(for: table, rows: end - start), bindings)
        }
    }

    /// `INSERT INTO t (Z_PK, Z_ENT, Z_OPT, …) VALUES ($1, $2, 1, …), ($n, …)`, built once per table
    /// and row count (a few counts per table are kept).
    private func insertStatement(for table: EntityTable, rows: Int) -> String {
        if let cached = insertStatements.withLock({ $0[table.number]?[rows] }) { return cached }
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)
        let width = table.columns.count + 2
        var tuples: [String] = []
        tuples.reserveCapacity(rows)
        for row in 0..<rows {
            let base = row * width
            var values = ["$\(base + 1)", "$\(base + 2)", "1"]
            for (offset, column) in table.columns.enumerated() {
                values.append(schema.dialect.parameter(base + offset + 3, declaredType: column.declaredType))
            }
            tuples.append("(" + values.joined(separator: ", ") + ")")
        }
        let sql = "INSERT INTO \(table.table) (\(names.joined(separator: ", "))) VALUES " + tuples.joined(separator: ", ")
        insertStatements.withLock { cache in
            if cache[table.number, default: [:]].count > 64 { cache[table.number] = [:] }
            cache[table.number, default: [:]][rows] = sql
        }
        return sql
    }
}
#endif
