import Foundation
import StoreCore

/// Migrates a SQLite store in place, inside one transaction: every table whose layout changes
/// is rebuilt — a new table filled by one `INSERT … SELECT` from the old one, which is then
/// dropped — keeping each object's `Z_PK` (so object IDs and URIs stay valid), and
/// `Z_PRIMARYKEY`, `Z_METADATA`, indexes, uniqueness constraints, R-trees and derived-attribute
/// triggers are made to fit the destination model. A failure or a crash at any moment leaves
/// the old store (SQLite rolls the transaction back); nothing of a half-migrated store is
/// ever visible. docs/migration.md describes what is carried and how.
///
/// `SQLiteStore.register()` registers it for ``/StoreCore/PersistentStoreType/sqlite``.
///
/// For example:
///
/// ```swift
/// try SQLiteStoreMigrator().migrateStore(StoreMigrationRequest(
///     url: storeURL, type: .sqlite, options: [:], sourceModel: v1, destinationModel: v2,
///     mapping: try .inferredMappingModel(forSourceModel: v1, destinationModel: v2)))
/// ```
public struct SQLiteStoreMigrator: PersistentStoreMigrator {
    /// The SQLite migrator; it holds no settings.
    public init() {}

    /// Rebuilds the store's changed tables in place in one SQLite transaction, keeping each `Z_PK`; refuses
    /// read-only requests and files that are not SQLite stores, and leaves the store as it was on failure.
    public func migrateStore(_ request: StoreMigrationRequest) throws {
        let url = request.url
        if request.options[.readOnly] == .boolean(true) {
            throw MigrationError(.migrationFailed, url: url, "the store is opened read-only, so it is not migrated")
        }
        // Refuses anything that is not a Core Data SQLite store before opening it for writing.
        _ = try SQLiteMetadataReader.metadata(at: url)
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
        } catch {
            throw MigrationError(.migrationFailed, url: url, "the store cannot be opened for migrating: \(error)")
        }
        connection.setBusyTimeout(5)
        SQLiteFunctions.register(on: connection)
        do {
            try connection.transaction { try SQLiteMigration(request: request, connection: connection).run() }
            request.progress?(1)
        } catch let error as MigrationError {
            throw error.url == nil ? MigrationError(error.code, url: url, entity: error.entity, key: error.key, error.message) : error
        } catch {
            throw MigrationError(.migrationFailed, url: url, "the migration failed and the store was left as it was: \(error)")
        }
    }
}
