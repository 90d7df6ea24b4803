#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// Migrates a PostgreSQL store to another model version in one transaction, with PostgreSQL's
/// transactional DDL: the destination's tables are created in a staging schema, every carried
/// entity's rows are copied into them by `INSERT … SELECT` from the old tables — keeping their
/// primary keys, so object IDs and URIs stay valid (the SQL of SQLite's in-place migration,
/// `RowCopier`, shared through StoreSQL) — history moves over, the old schema is dropped and
/// the staging schema takes its name. Every other connection sees the old store or the new one;
/// a failure at any point rolls everything back. An advisory lock keeps two processes from
/// migrating the same store at once; other writers wait on the tables until the migration commits.
///
/// A mapping the SQL copy cannot carry out — an attribute changing type, a custom entity policy
/// or source predicate, a value expression — goes through ``/StoreCore/MigrationManager`` instead:
/// objects are carried into the staging schema through contexts (new primary keys, the source
/// graph in memory), then swapped in the same way in one transaction.
///
/// For example (the coordinator does this by itself when a store's model changed):
///
/// ```swift
/// try PostgresStoreMigrator().migrateStore(request)
/// ```
public struct PostgresStoreMigrator: PersistentStoreMigrator {
    /// The PostgreSQL migrator; it holds no settings (the request names the store).
    public init() {}

    /// Copies the rows into a staging schema by SQL and swaps it in, in one transaction under an advisory
    /// lock; a mapping SQL cannot carry goes through `MigrationManager`. Refuses read-only requests.
    public func migrateStore(_ request: StoreMigrationRequest) throws {
        if request.options[.readOnly] == .boolean(true) {
            throw MigrationError(.migrationFailed, url: request.url, "the store is opened read-only, so it is not migrated")
        }
        var description = PersistentStoreDescription(type: .postgres, url: request.url)
        description.options.merge(request.options) { $1 }
        var options = try PostgresStoreOptions(description)
        options.poolSize = 1
        let pool = try PostgresSessionPool(options: options, log: .fromEnvironment)
        defer { pool.close() }
        let staging = String("\(options.schema)_migrating".prefix(63))
        do {
            try pool.withConnection { connection in
                try connection.transaction {
                    try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("stowage.migration." + options.schema)])
                    try InPlaceMigration(request: request, connection: connection, schema: options.schema, staging: staging).run()
                }
            }
        } catch let error as MigrationError where error.code == .invalidMapping {
            try migrateThroughContexts(request, pool: pool, schema: options.schema, staging: staging)
        } catch let error as MigrationError {
            throw error
        } catch {
            throw MigrationError(.migrationFailed, url: request.url, "the PostgreSQL store was not migrated (nothing changed): \(PostgresStore.storeError(error, url: request.url))")
        }
    }

    /// The migration manager's way: objects carried into a staging store, swapped in.
    private func migrateThroughContexts(_ request: StoreMigrationRequest, pool: PostgresSessionPool, schema: String, staging: String) throws {
        _ = try pool.withConnection { try $0.run("DROP SCHEMA IF EXISTS \(staging) CASCADE") }
        var stagingOptions = request.options
        stagingOptions[.postgresSchema] = .string(staging)
        do {
            try MigrationManager(sourceModel: request.sourceModel, destinationModel: request.destinationModel).migrateStore(
                from: request.url, type: .postgres, options: request.options, with: request.mapping,
                to: request.url, type: .postgres, options: stagingOptions)
            request.progress?(0.95)
            try pool.withConnection { connection in
                try connection.transaction {
                    // The new store takes the old one's identity, so its object IDs name the same store.
                    try connection.run(
                        "UPDATE \(staging).Z_METADATA SET Z_UUID = (SELECT Z_UUID FROM \(schema).Z_METADATA WHERE Z_VERSION = 1) WHERE Z_VERSION = 1")
                    try connection.run("DROP SCHEMA \(schema) CASCADE")
                    try connection.run("ALTER SCHEMA \(staging) RENAME TO \(schema)")
                }
            }
            request.progress?(1)
        } catch {
            _ = try? pool.withConnection { try $0.run("DROP SCHEMA IF EXISTS \(staging) CASCADE") }
            if error is MigrationError { throw error }
            throw MigrationError(.migrationFailed, url: request.url, "the PostgreSQL store was not migrated (nothing changed): \(PostgresStore.storeError(error, url: request.url))")
        }
    }
}

/// One migration by SQL, inside the migrator's transaction.
private struct InPlaceMigration {
    let request: StoreMigrationRequest
    let connection: PostgresSession
    let schema: String
    let staging: String

    func run() throws {
        var stored: [String: StoredEntity] = [:]
        for row in try connection.query("SELECT Z_ENT, Z_NAME, Z_MAX FROM \(schema).Z_PRIMARYKEY") {
            if let name = row.text(at: 1) { stored[name] = StoredEntity(number: row.int64(at: 0), max: row.int64(at: 2)) }
        }
        var sourceNumbers: [String: Int64] = [:]
        for entity in request.sourceModel.entities {
            guard let row = stored[entity.name] else {
                throw MigrationError(.migrationFailed, url: request.url, entity: entity.name, "the store has no Z_PRIMARYKEY row for \(entity.name), so it was not written with the source model")
            }
            sourceNumbers[entity.name] = row.number
        }
        let dialect = PostgresDialect()
        let source = SQLSchema(model: request.sourceModel, entityNumbers: sourceNumbers, dialect: dialect)
        let destination = SQLSchema(
            model: request.destinationModel,
            entityNumbers: SQLSchema.migrationEntityNumbers(destinationModel: request.destinationModel, mapping: request.mapping, stored: stored),
            dialect: dialect)
        let keys = try KeyOffsets(
            source: source, destination: destination, mapping: request.mapping, sourceModel: request.sourceModel,
            destinationModel: request.destinationModel, stored: stored
        ) { table in
            if case .integer(let key)? = try connection.scalar("SELECT MAX(Z_PK) FROM \(schema).\(table)") { return key }
            return nil
        }
        var copier = RowCopier(request: request, source: source, destination: destination, keys: keys, convertFunction: nil)
        copier.sourceSchema = schema
        // Everything that can refuse the mapping runs before the first change.
        let copies = try copier.statements()
        var metadata = try readMetadata()
        metadata.modelVersionHashes = request.destinationModel.coreDataEntityVersionHashesByName

        try connection.run("DROP SCHEMA IF EXISTS \(staging) CASCADE")
        try connection.run("CREATE SCHEMA \(staging)")
        try connection.run("SET LOCAL search_path TO \(staging)")
        let compiler = SQLCompiler(schema: destination, model: request.destinationModel)
        for sql in try PostgresFunctions.statements() + destination.createStatements(model: request.destinationModel, predicateSQL: { table, format in
            try compiler.indexPredicate(format, on: table)
        }) {
            try connection.run(sql)
        }
        for (done, copy) in copies.enumerated() {
            try connection.run(Self.numberedParameters(copy.sql), copy.values)
            request.progress?(Double(done + 1) / Double(copies.count + 1))
        }
        for sql in copier.cleanupStatements() { try connection.run(sql) }
        try destination.rewritePrimaryKeys(destinationModel: request.destinationModel, mapping: request.mapping, stored: stored, keys: keys, on: connection)
        try PostgresStoreOpener.writeMetadata(metadata, on: connection)
        for table in [PostgresHistoryTables.transactions, PostgresHistoryTables.changes, PostgresHistoryTables.purges] {
            if try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [.text("\(schema).\(table.lowercased())")]) == .integer(1) {
                try connection.run("ALTER TABLE \(schema).\(table) SET SCHEMA \(staging)")
            }
        }
        try connection.run("DROP SCHEMA \(schema) CASCADE")
        try connection.run("ALTER SCHEMA \(staging) RENAME TO \(schema)")
        try connection.run("SET LOCAL search_path TO \(schema)")
        request.progress?(1)
    }

    private func readMetadata() throws -> StoreMetadata {
        try connection.run("SET LOCAL search_path TO \(schema)")
        return try PostgresStoreOpener.readMetadata(on: connection)
    }

    /// The statement with its `?` placeholders numbered `$1`, `$2`… (quoted text left alone).
    static func numberedParameters(_ sql: String) -> String {
        var result = ""
        var number = 0
        var inQuote = false
        for character in sql {
            if character == "'" { inQuote.toggle() }
            if character == "?", !inQuote {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
#endif
