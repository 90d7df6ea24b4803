import Foundation

/// The name of a store option, with the Core Data option names users know.
///
/// For example:
///
/// ```swift
/// description.setOption(true, forKey: .persistentHistoryTracking)
/// ```
public struct PersistentStoreOption: RawRepresentable, Hashable, Sendable {
    /// The option's key string: Core Data's for its options (`NSReadOnlyPersistentStoreOption`…),
    /// `Stowage…` for Stowage's own.
    public let rawValue: String
    /// An option with the key `rawValue`, for options of your own store types.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Record every save as a persistent-history transaction (`NSPersistentHistoryTrackingKey`).
    public static let persistentHistoryTracking = Self(rawValue: "NSPersistentHistoryTrackingKey")
    /// Migrate an older store when it is opened (`NSMigratePersistentStoresAutomaticallyOption`).
    public static let migratePersistentStoresAutomatically = Self(rawValue: "NSMigratePersistentStoresAutomaticallyOption")
    /// Infer the mapping for that migration (`NSInferMappingModelAutomaticallyOption`).
    public static let inferMappingModelAutomatically = Self(rawValue: "NSInferMappingModelAutomaticallyOption")
    /// Open the store read-only (`NSReadOnlyPersistentStoreOption`).
    public static let readOnly = Self(rawValue: "NSReadOnlyPersistentStoreOption")
    /// Seconds to wait for a locked store (`NSPersistentStoreTimeoutOption`).
    public static let timeout = Self(rawValue: "NSPersistentStoreTimeoutOption")
    /// Refuse a lightweight migration in which an entity looks renamed without a renaming
    /// identifier (Stowage's own; see ``LikelyEntityRename``).
    public static let refusesLikelyEntityRenames = Self(rawValue: "StowageRefusesLikelyEntityRenames")
}

/// How to load one store: its type, location, configuration and options.
///
/// For example:
///
/// ```swift
/// var description = PersistentStoreDescription(type: .inMemory)
/// description.configuration = "Local"
/// description.setOption(true, forKey: .persistentHistoryTracking)
/// container.persistentStoreDescriptions = [description]
/// ```
public struct PersistentStoreDescription: Sendable, Hashable, CustomStringConvertible {
    /// The store type.
    public var type: PersistentStoreType
    /// The store's file, for file-backed types.
    public var url: URL?
    /// The model configuration the store holds (`nil`: every entity).
    public var configuration: String?
    /// The options, by name.
    public var options: [PersistentStoreOption: StoreValue] = [:]
    /// Whether the coordinator may load the store off the caller's thread (honoured by
    /// ``PersistentContainer/loadPersistentStores(completionHandler:)``).
    public var shouldAddStoreAsynchronously = false
    /// Walks an older store through these stages when it is loaded, instead of migrating it in one
    /// step (Core Data's `NSPersistentStoreStagedMigrationManagerOptionKey`); see ``StagedMigrationManager``.
    public var stagedMigrationManager: StagedMigrationManager?

    /// A description of a store of `type` at `url` holding `configuration`, with automatic migration
    /// and mapping inference on, as Core Data's `NSPersistentStoreDescription` has them.
    public init(type: PersistentStoreType, url: URL? = nil, configuration: String? = nil) {
        self.type = type
        self.url = url
        self.configuration = configuration
        options[.migratePersistentStoresAutomatically] = true
        options[.inferMappingModelAutomatically] = true
    }

    /// A description for a store file or server; the type defaults to SQLite, as in Core Data,
    /// or PostgreSQL for a `postgres://` (or `postgresql://`) URL.
    ///
    /// For example:
    ///
    /// ```swift
    /// PersistentStoreDescription(url: URL(fileURLWithPath: "Blog.sqlite"))                 // .sqlite
    /// PersistentStoreDescription(url: URL(string: "postgres://app@db.local/blog")!)       // .postgres
    /// ```
    public init(url: URL, type: PersistentStoreType? = nil) {
        let isPostgres = ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "")
        self.init(type: type ?? (isPostgres ? .postgres : .sqlite), url: url)
    }

    /// Sets an option (nil removes it).
    public mutating func setOption(_ value: StoreValue?, forKey key: PersistentStoreOption) {
        options[key] = value
    }

    /// Whether saves are refused.
    public var isReadOnly: Bool {
        get { options[.readOnly] == .boolean(true) }
        set { options[.readOnly] = .boolean(newValue) }
    }

    /// Whether an older store is migrated when opened.
    public var shouldMigrateStoreAutomatically: Bool {
        get { options[.migratePersistentStoresAutomatically] == .boolean(true) }
        set { options[.migratePersistentStoresAutomatically] = .boolean(newValue) }
    }

    /// Whether the mapping for that migration is inferred.
    public var shouldInferMappingModelAutomatically: Bool {
        get { options[.inferMappingModelAutomatically] == .boolean(true) }
        set { options[.inferMappingModelAutomatically] = .boolean(newValue) }
    }

    /// Whether a lightweight migration of the store is refused with
    /// `MigrationError` `.likelyEntityRename` when a removed entity and an added one have the
    /// same attributes and relationships (``LikelyEntityRename``) — instead of dropping the removed
    /// entity's objects, as Core Data does. Off by default; such a migration is always logged.
    ///
    /// For example:
    ///
    /// ```swift
    /// var description = PersistentStoreDescription(url: storeURL)
    /// description.shouldRefuseLikelyEntityRenames = true
    /// ```
    public var shouldRefuseLikelyEntityRenames: Bool {
        get { options[.refusesLikelyEntityRenames] == .boolean(true) }
        set { options[.refusesLikelyEntityRenames] = .boolean(newValue) }
    }

    /// Whether saves are recorded as persistent-history transactions.
    public var isHistoryTrackingEnabled: Bool {
        get { options[.persistentHistoryTracking] == .boolean(true) }
        set { options[.persistentHistoryTracking] = .boolean(newValue) }
    }

    /// Seconds to wait for a locked store.
    public var timeout: TimeInterval {
        get { options[.timeout]?.numericValue ?? 240 }
        set { options[.timeout] = .double(newValue) }
    }

    public var description: String {
        "\(type.rawValue) store" + (url.map { " at \($0.path)" } ?? "") + (configuration.map { " (configuration \($0))" } ?? "")
    }
}
