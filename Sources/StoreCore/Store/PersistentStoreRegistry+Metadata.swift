import Foundation
import Synchronization

extension PersistentStoreRegistry {
    /// Reads the metadata of a store file of one type without opening the store (no model,
    /// no objects loaded, nothing written).
    public typealias MetadataReader = @Sendable (URL) throws -> StoreMetadata
    /// Reads the metadata of a store that a URL and the description's options name together
    /// (a PostgreSQL store: the server's URL, and the schema option).
    public typealias OptionsMetadataReader = @Sendable (URL, [PersistentStoreOption: StoreValue]) throws -> StoreMetadata

    private static let metadataReaders = Mutex<[PersistentStoreType: OptionsMetadataReader]>([:])

    /// Registers (or replaces) how the metadata of a store type's files is read, for
    /// ``PersistentStoreCoordinator/metadataForPersistentStore(ofType:at:)`` and automatic
    /// migration. The built-in file types register theirs with their stores; an
    /// ``AtomicStore`` type registers one that asks its format
    /// (``AtomicStoreFormat/readMetadata(_:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// PersistentStoreRegistry.registerMetadataReader(for: PersistentStoreType(rawValue: "mine")) { url in
    ///     try MyFormat.metadata(of: Data(contentsOf: url))
    /// }
    /// ```
    public static func registerMetadataReader(for type: PersistentStoreType, _ reader: @escaping MetadataReader) {
        metadataReaders.withLock { $0[type] = { url, _ in try reader(url) } }
    }

    /// Registers (or replaces) a metadata reader that also takes the store description's options,
    /// for stores a URL alone does not name (the PostgreSQL store's schema is an option).
    ///
    /// For example:
    ///
    /// ```swift
    /// PersistentStoreRegistry.registerMetadataReader(for: .postgres, options: { url, options in
    ///     try PostgresStore.metadata(at: url, options: options)
    /// })
    /// ```
    public static func registerMetadataReader(for type: PersistentStoreType, options reader: @escaping OptionsMetadataReader) {
        metadataReaders.withLock { $0[type] = reader }
    }

    /// The metadata of the store file at `url`, read by its type's registered reader.
    ///
    /// - Throws: ``StoreError``: `unknownStoreType` when the type has no metadata
    ///   reader (in-memory stores have no file), `storeTypeUnavailable` for `.postgres` in a
    ///   build without the `Postgres` package trait, `io` when there is no file, or
    ///   whatever the reader throws for a file that is not a store of the type.
    public static func metadata(ofType type: PersistentStoreType, at url: URL) throws -> StoreMetadata {
        try metadata(ofType: type, at: url, options: [:])
    }

    /// The metadata of the store at `url` that a description with `options` names.
    public static func metadata(ofType type: PersistentStoreType, at url: URL, options: [PersistentStoreOption: StoreValue]) throws -> StoreMetadata {
        _ = registeredTypes  // the built-ins register their readers with their stores
        guard let reader = metadataReaders.withLock({ $0[type] }) else {
            if let unavailable = type.unavailableInThisBuild(url: url) { throw unavailable }
            throw StoreError(
                .unknownStoreType, url: url,
                "\(type.rawValue) stores have no metadata to read from a file (registered readers: \(metadataTypes.map(\.rawValue).joined(separator: ", ")))")
        }
        if url.isFileURL { try checkFileExists(url) }
        return try reader(url, options)
    }

    /// The metadata of the store file at `url` and its type: each registered reader is tried
    /// (SQLite first, then the others by name) until one reads the file.
    static func metadataDetectingType(at url: URL) throws -> StoreMetadata {
        _ = registeredTypes
        try checkFileExists(url)
        var failures: [String] = []
        for type in metadataTypes where type != .postgres {
            guard let reader = metadataReaders.withLock({ $0[type] }) else { continue }
            do {
                return try reader(url, [:])
            } catch {
                failures.append("\(type.rawValue): \(error)")
            }
        }
        throw StoreError(
            .wrongFormat, url: url,
            "not a store of any registered type (\(failures.isEmpty ? "no store type can read metadata" : failures.joined(separator: "; ")))")
    }

    /// The types with a metadata reader, SQLite first.
    private static var metadataTypes: [PersistentStoreType] {
        metadataReaders.withLock { Array($0.keys) }.sorted { ($0 == .sqlite ? 0 : 1, $0.rawValue) < ($1 == .sqlite ? 0 : 1, $1.rawValue) }
    }

    private static func checkFileExists(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw StoreError(.io, url: url, "there is no store file here")
        }
    }
}
