import Foundation

extension PersistentStoreCoordinator {
    /// The metadata of a store file, read without opening the store: no model is needed, no
    /// object is loaded and nothing is written (Core Data's
    /// `metadataForPersistentStore(ofType:at:options:)`). Use it to find the model version
    /// that wrote a store (``ManagedObjectModel/isConfiguration(withName:compatibleWithStoreMetadata:)``)
    /// before deciding how to open it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL)
    /// metadata.storeType              // "sqlite" (PersistentStoreType.sqlite.rawValue)
    /// model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The store type; `nil` detects it by trying each registered type's reader.
    ///   - url: The store file.
    /// - Throws: ``StoreError``: `io` when there is no file,
    ///   `wrongFormat` or `corrupt` when the file is not a store of the
    ///   type (or, detecting, of any type), `unknownStoreType` for a type without
    ///   files (in-memory).
    public static func metadataForPersistentStore(ofType type: PersistentStoreType? = nil, at url: URL) throws -> StoreMetadata {
        guard let type else { return try PersistentStoreRegistry.metadataDetectingType(at: url) }
        return try PersistentStoreRegistry.metadata(ofType: type, at: url)
    }
}
