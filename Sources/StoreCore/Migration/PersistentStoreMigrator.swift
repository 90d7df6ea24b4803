import Foundation
import Synchronization

/// Brings a store of one type, saved with one model version, to another version, given the
/// mapping between them. Every built-in store type has one; a user-written store type registers
/// its own with ``PersistentStoreRegistry/registerMigrator(_:for:)`` to take part in automatic
/// migration.
///
/// A migrator must leave the store either as it was or fully migrated, whatever happens — a
/// thrown error, a crash, a power cut — and record the destination model's version hashes in
/// the store's metadata.
///
/// For example:
///
/// ```swift
/// struct MyMigrator: PersistentStoreMigrator {
///     func migrateStore(_ request: StoreMigrationRequest) throws {
///         // read request.url with request.sourceModel, apply request.mapping, write it back
///     }
/// }
/// PersistentStoreRegistry.registerMigrator(MyMigrator(), for: PersistentStoreType(rawValue: "mine"))
/// ```
public protocol PersistentStoreMigrator: Sendable {
    /// Migrates the store the request names, in place.
    func migrateStore(_ request: StoreMigrationRequest) throws
}

/// What a ``PersistentStoreMigrator`` is asked to do.
///
/// For example:
///
/// ```swift
/// let request = StoreMigrationRequest(url: storeURL, type: .sqlite, options: [:], sourceModel: v1, destinationModel: v2,
///                                     mapping: try .inferredMappingModel(forSourceModel: v1, destinationModel: v2))
/// ```
public struct StoreMigrationRequest: Sendable {
    /// The store's file.
    public let url: URL
    /// The store type.
    public let type: PersistentStoreType
    /// The options of the description the store is being loaded with.
    public let options: [PersistentStoreOption: StoreValue]
    /// The model version the store was saved with.
    public let sourceModel: ManagedObjectModel
    /// The model version the store is to fit afterwards.
    public let destinationModel: ManagedObjectModel
    /// How each entity and property is carried over.
    public let mapping: MappingModel
    /// Called as the migration advances, with the fraction done (0…1); migrators report what
    /// they can measure (SQLite: each table copied; atomic stores: read, mapped, written).
    public var progress: (@Sendable (Double) -> Void)?

    /// A request to migrate the store of `type` at `url` from `sourceModel` to `destinationModel`
    /// with `mapping`, with no progress handler.
    public init(
        url: URL, type: PersistentStoreType, options: [PersistentStoreOption: StoreValue], sourceModel: ManagedObjectModel,
        destinationModel: ManagedObjectModel, mapping: MappingModel
    ) {
        self.url = url
        self.type = type
        self.options = options
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.mapping = mapping
    }
}

extension PersistentStoreRegistry {
    private static let migrators = Mutex<[PersistentStoreType: any PersistentStoreMigrator]>([:])

    /// Registers (or replaces) the migrator of a store type.
    public static func registerMigrator(_ migrator: any PersistentStoreMigrator, for type: PersistentStoreType) {
        migrators.withLock { $0[type] = migrator }
    }

    /// The migrator registered for a store type, if any.
    public static func migrator(for type: PersistentStoreType) -> (any PersistentStoreMigrator)? {
        _ = registeredTypes   // the built-ins register theirs with their stores
        return migrators.withLock { $0[type] }
    }
}
