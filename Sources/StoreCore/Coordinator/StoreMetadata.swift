import Foundation

/// What a store records about itself: its identifier, its type, the version hashes of the
/// model that last saved it, and the application's own metadata.
///
/// For example:
///
/// ```swift
/// var metadata = coordinator.metadata(for: store)
/// metadata.userInfo["importedAt"] = .date(Date())
/// try coordinator.setMetadata(metadata, for: store)
/// ```
public struct StoreMetadata: Sendable, Hashable {
    /// The store's unique identifier (Core Data's `NSStoreUUID`).
    public var storeUUID: String
    /// The store type, as Stowage names it (`PersistentStoreType.rawValue`: `"sqlite"`, `"xml"`…);
    /// the file records Core Data's name for it (`NSStoreType`: `"SQLite"`, `"XML"`…).
    public var storeType: String
    /// Entity version hashes of the model that last saved the store (`NSStoreModelVersionHashes`).
    public var modelVersionHashes: [String: Data]
    /// The application's own keys and values.
    public var userInfo: [String: StoreValue]

    /// Metadata for a store of `storeType` — by default a new UUID, no version hashes and no
    /// application keys.
    public init(
        storeUUID: String = UUID().uuidString, storeType: String, modelVersionHashes: [String: Data] = [:],
        userInfo: [String: StoreValue] = [:]
    ) {
        self.storeUUID = storeUUID
        self.storeType = storeType
        self.modelVersionHashes = modelVersionHashes
        self.userInfo = userInfo
    }
}
