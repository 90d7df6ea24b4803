#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// Opens a schema as a store: creates the schema and Core Data's tables in it when there is no
/// store yet, or reads the entity numbers and metadata of the store there and checks that the
/// model fits it. Creation runs in one transaction holding an advisory lock on the schema's
/// name, so processes opening a new store at once create it once.
struct PostgresStoreOpener {
    let pool: PostgresSessionPool
    let model: ManagedObjectModel
    let options: PostgresStoreOptions
    let readOnly: Bool
    let history: Bool

    func open() throws -> SQLOpenedStore {
        try pool.withConnection { connection in
            if try storeExists(on: connection) {
                let opened = try connection.transaction("REPEATABLE READ") { try openExisting(on: connection) }
                if history && !readOnly { try createHistoryTablesIfMissing(on: connection) }
                return opened
            }
            guard !readOnly else {
                throw StoreError(.io, url: nil, "there is no store in schema \(options.schema) at \(options.location) to open read-only")
            }
            return try connection.transaction {
                try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("stowage." + options.schema)])
                try connection.run("CREATE SCHEMA IF NOT EXISTS \(options.schema)")
                // Another process may have created it while this one waited for the lock.
                let opened = try storeExists(on: connection) ? try openExisting(on: connection) : try create(on: connection)
                if history { try PostgresHistoryTables.create(on: connection) }
                return opened
            }
        }
    }

    private func storeExists(on connection: PostgresSession) throws -> Bool {
        try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [.text("\(options.schema).z_metadata")]) == .integer(1)
    }

    private func create(on connection: PostgresSession) throws -> SQLOpenedStore {
        let existing = try connection.scalar(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1", [.text(options.schema)])
        guard existing == .integer(0) else {
            throw StoreError(.incompatibleModel, "schema \(options.schema) has tables but no Z_METADATA, so it is not a store; it was left untouched")
        }
        let schema = SQLSchema(model: model, entityNumbers: nil, dialect: PostgresDialect())
        let compiler = SQLCompiler(schema: schema, model: model)
        let statements = try PostgresFunctions.statements() + schema.createStatements(model: model) { table, format in
            try compiler.indexPredicate(format, on: table)
        }
        for statement in statements { try connection.run(statement) }
        let metadata = StoreMetadata(storeType: PersistentStoreType.postgres.rawValue, modelVersionHashes: model.coreDataEntityVersionHashesByName)
        try Self.writeMetadata(metadata, on: connection)
        return SQLOpenedStore(schema: schema, metadata: metadata)
    }

    private func openExisting(on connection: PostgresSession) throws -> SQLOpenedStore {
        var stored: [String: Int64] = [:]
        for row in try connection.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            if case .text(let name) = row.value(at: 1) { stored[name] = row.int64(at: 0) }
        }
        var numbers: [String: Int64] = [:]
        let modelNames = Set(model.entities.map(\.name))
        for entity in model.entities {
            if let number = stored[entity.name] {
                numbers[entity.name] = number
            } else if let oldName = entity.renamingIdentifier, !modelNames.contains(oldName), let number = stored[oldName] {
                numbers[entity.name] = number
            }
        }
        let schema = SQLSchema(model: model, entityNumbers: numbers, dialect: PostgresDialect())
        let metadata = try Self.readMetadata(on: connection)
        if metadata.modelVersionHashes != model.coreDataEntityVersionHashesByName,
            metadata.modelVersionHashes != model.entityVersionHashesByName
        {
            try checkLayout(schema, numbers: numbers, on: connection)
        }
        return SQLOpenedStore(schema: schema, metadata: metadata)
    }

    /// Every entity numbered, every table and column present.
    private func checkLayout(_ schema: SQLSchema, numbers: [String: Int64], on connection: PostgresSession) throws {
        var problems: [String] = []
        for entity in model.entities where numbers[entity.name] == nil {
            problems.append("entity \(entity.name) has no row in Z_PRIMARYKEY")
        }
        var columnsByTable: [String: Set<String>] = [:]
        for row in try connection.query(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1", [.text(options.schema)])
        {
            if case .text(let table) = row.value(at: 0), case .text(let column) = row.value(at: 1) {
                columnsByTable[table.uppercased(), default: []].insert(column.uppercased())
            }
        }
        for table in schema.rootTables {
            guard let columns = columnsByTable[table.name.uppercased()] else {
                problems.append("table \(table.name) is missing")
                continue
            }
            for column in table.columns where !columns.contains(column.name.uppercased()) {
                problems.append("\(table.name) has no column \(column.name)")
            }
        }
        for join in schema.joinTables where columnsByTable[join.name.uppercased()] == nil {
            problems.append("join table \(join.name) is missing")
        }
        guard problems.isEmpty else {
            throw StoreError(.incompatibleModel, "the store in schema \(options.schema) was saved with a different model: "
                + problems.joined(separator: "; ") + "; it was left untouched")
        }
    }

    /// Creates the history tables of a store opened with history for the first time. The catalog
    /// is read first, without a lock, and nothing else runs when they are there: DDL on a history
    /// table (even `CREATE INDEX IF NOT EXISTS`) would wait behind every save in flight.
    /// ``PostgresHistoryTables/create(on:)`` makes the tables and indexes in one transaction, so
    /// the objects added to it later all present means all of it is (a store made before one of
    /// them was added gets it).
    private func createHistoryTablesIfMissing(on connection: PostgresSession) throws {
        let later = PostgresHistoryTables.addedLater.map { SQLValue.text("\(options.schema).\($0)".lowercased()) }
        let missing = later.indices.map { "to_regclass($\($0 + 1)) IS NULL" }.joined(separator: " OR ")
        guard try connection.scalar("SELECT " + missing, later) == .integer(1) else { return }
        try connection.transaction {
            try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("stowage." + options.schema)])
            try PostgresHistoryTables.create(on: connection)
        }
    }

    // MARK: Metadata

    static func readMetadata(on connection: PostgresSession) throws -> StoreMetadata {
        guard let row = try connection.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1").first,
            case .text(let uuid) = row.value(at: 0)
        else { throw StoreError(.corrupt, "Z_METADATA has no row; the store's identity is unknown") }
        var plist = Data()
        if case .blob(let data) = row.value(at: 1) { plist = data }
        let type = PersistentStoreType.postgres.rawValue
        guard !plist.isEmpty else { return StoreMetadata(storeUUID: uuid, storeType: type) }
        guard case .dictionary(let entries) = try BinaryPropertyListReader().read(plist) else {
            throw StoreError(.corrupt, "the store's metadata is not a dictionary")
        }
        var metadata = StoreMetadata(propertyList: entries, storeUUID: uuid, storeType: type)
        metadata.storeUUID = uuid
        metadata.storeType = type
        return metadata
    }

    static func writeMetadata(_ metadata: StoreMetadata, on connection: PostgresSession) throws {
        var old: [String: PropertyListValue] = [:]
        if case .blob(let data)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1"),
            case .dictionary(let entries)? = try? BinaryPropertyListReader().read(data)
        {
            old = entries
        }
        let plist = BinaryPropertyListWriter().write(.dictionary(metadata.propertyList(storeTypeName: "PostgreSQL", preserving: old)))
        try connection.run(
            """
            INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, $1, $2)
            ON CONFLICT (Z_VERSION) DO UPDATE SET Z_UUID = EXCLUDED.Z_UUID, Z_PLIST = EXCLUDED.Z_PLIST
            """,
            [.text(metadata.storeUUID), .blob(plist)])
    }
}
#endif
