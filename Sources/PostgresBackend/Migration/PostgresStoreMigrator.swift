import Foundation
import StoreCore

/// Migrates a PostgreSQL store to another model version: every object is carried by the mapping
/// (``StoreCore/MigrationManager``) into a new store in a schema of its own, and then, in one
/// transaction, the old schema is dropped and the new one takes its name — PostgreSQL's DDL is
/// transactional, so every other connection sees the old store or the new one, never a mixture,
/// and a failure at any point leaves the old store as it was (a half-built schema from a crash is
/// dropped by the next migration).
///
/// Objects get new primary keys in the new store (their IDs and URIs change), the migration
/// holds the source graph in memory, and saves other processes make to the old store while it
/// runs are lost at the swap: migrate while the store's other users are stopped.
///
/// For example (the coordinator does this by itself when a store's model changed):
///
/// ```swift
/// try PostgresStoreMigrator().migrateStore(request)
/// ```
public struct PostgresStoreMigrator: PersistentStoreMigrator {
    public init() {}

    public func migrateStore(_ request: StoreMigrationRequest) throws {
        if request.options[.readOnly] == .boolean(true) {
            throw MigrationError(.migrationFailed, url: request.url, "the store is opened read-only, so it is not migrated")
        }
        let options = try PostgresStoreOptions(PersistentStoreDescription(type: .postgres, url: request.url).with(request.options))
        let staging = String("\(options.schema)_migrating".prefix(63))
        var single = options
        single.poolSize = 1
        let pool = try ServerConnectionPool(options: single, log: .fromEnvironment)
        defer { pool.close() }
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
                        "UPDATE \(staging).Z_METADATA SET Z_UUID = (SELECT Z_UUID FROM \(options.schema).Z_METADATA WHERE Z_VERSION = 1) WHERE Z_VERSION = 1")
                    try connection.run("DROP SCHEMA \(options.schema) CASCADE")
                    try connection.run("ALTER SCHEMA \(staging) RENAME TO \(options.schema)")
                }
            }
            request.progress?(1)
        } catch {
            _ = try? pool.withConnection { try $0.run("DROP SCHEMA IF EXISTS \(staging) CASCADE") }
            throw PostgresStore.storeError(error, url: request.url)
        }
    }
}

extension PersistentStoreDescription {
    /// The description with `options` added.
    fileprivate func with(_ options: [PersistentStoreOption: StoreValue]) -> PersistentStoreDescription {
        var copy = self
        copy.options.merge(options) { $1 }
        return copy
    }
}
