import Foundation
import Synchronization

/// How the files of one store type are copied over one another and removed, for
/// ``PersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``
/// and ``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)`` — Core Data's
/// "in accordance with the store class's requirements".
///
/// The SQLite store registers its own (an online backup with SQLite's backup API; the `-wal`,
/// `-shm` and external-data folder handled with the database); every file format on the atomic
/// engine (``AtomicStore/register(_:format:)``) gets the engine's (a durable copy of the one file).
/// A store type of your own that keeps files registers one the same way; types without one (the
/// in-memory and PostgreSQL stores) refuse both operations with `unsupportedRequest`.
///
/// The coordinator has already checked what every type shares before it calls these methods:
/// file URLs, a source that exists and is not the destination, a destination or store to
/// destroy that this coordinator has not loaded. An implementation checks that the files are
/// stores of its type and must change nothing when it throws.
///
/// For example:
///
/// ```swift
/// struct MyStoreFiles: PersistentStoreFileOperations {
///     func replaceStore(at destination: URL, destinationOptions: [PersistentStoreOption: StoreValue],
///                       withStoreFrom source: URL, sourceOptions: [PersistentStoreOption: StoreValue]) throws {
///         // copy source's files to destination's place, atomically
///     }
///     func destroyStore(at url: URL, options: [PersistentStoreOption: StoreValue]) throws {
///         // remove every file of the store at url
///     }
/// }
/// PersistentStoreRegistry.registerFileOperations(MyStoreFiles(), for: PersistentStoreType(rawValue: "mine"))
/// ```
public protocol PersistentStoreFileOperations: Sendable {
    /// Puts a copy of the store at `source` in the place of the store at `destination` (or at
    /// `destination`, when nothing is there yet). The copy must be a consistent state of the
    /// source even while the source is open and being saved to; the destination must end up as
    /// it was or as a whole copy.
    func replaceStore(
        at destination: URL, destinationOptions: [PersistentStoreOption: StoreValue],
        withStoreFrom source: URL, sourceOptions: [PersistentStoreOption: StoreValue]
    ) throws
    /// Removes every file of the store at `url`, leaving nothing of it behind.
    func destroyStore(at url: URL, options: [PersistentStoreOption: StoreValue]) throws
}

extension PersistentStoreRegistry {
    private static let fileOperations = Mutex<[PersistentStoreType: any PersistentStoreFileOperations]>([:])

    /// Registers (or replaces) how a store type's files are replaced and destroyed.
    ///
    /// For example:
    ///
    /// ```swift
    /// PersistentStoreRegistry.registerFileOperations(MyStoreFiles(), for: PersistentStoreType(rawValue: "mine"))
    /// ```
    public static func registerFileOperations(_ operations: any PersistentStoreFileOperations, for type: PersistentStoreType) {
        fileOperations.withLock { $0[type] = operations }
    }

    /// The file operations of `type`.
    ///
    /// - Throws: ``StoreError``: `unknownStoreType` for a type nobody registered,
    ///   `storeTypeUnavailable` for `.postgres` in a build without the `Postgres` trait,
    ///   `unsupportedRequest` for a registered type whose stores have no files of their own
    ///   (in-memory, PostgreSQL: the message names the server's tools).
    static func fileOperations(for type: PersistentStoreType, url: URL, doing action: String) throws -> any PersistentStoreFileOperations {
        let known = registeredTypes   // the built-ins register theirs with their stores
        if let operations = fileOperations.withLock({ $0[type] }) { return operations }
        if let unavailable = type.unavailableInThisBuild(url: url) { throw unavailable }
        guard known.contains(type) else {
            throw StoreError(
                .unknownStoreType, url: url,
                "no store type '\(type.rawValue)' is registered (registered: \(known.map(\.rawValue).joined(separator: ", "))); nothing was \(action)")
        }
        let why = type == .postgres
            ? "a PostgreSQL store lives on its server: use the server's tools (pg_dump and pg_restore, pg_basebackup, DROP SCHEMA; docs/postgres.md)"
            : type == .inMemory ? "an in-memory store has no files" : "the type registered no file operations (PersistentStoreRegistry.registerFileOperations)"
        throw StoreError(.unsupportedRequest, url: url, "\(type.rawValue) stores cannot be \(action) by URL: \(why); nothing was \(action)")
    }
}
