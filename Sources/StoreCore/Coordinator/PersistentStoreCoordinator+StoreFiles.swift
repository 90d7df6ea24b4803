import Foundation

extension PersistentStoreCoordinator {
    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL` — or makes
    /// that copy, when nothing is at `destinationURL` yet — with every file the store type keeps
    /// (Core Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`).
    ///
    /// This is also how to take a **backup of a store that is open and in use**: the source may be
    /// loaded in this coordinator (or another, or another process) and saved to while the copy
    /// runs. A SQLite store is copied with SQLite's online backup API from one read snapshot, in
    /// steps, while saves go on (WAL mode), with the external binary data files that snapshot
    /// refers to; an XML or binary store's file is copied whole, and the copy is written durably
    /// (a temporary file, `fsync`, `rename`). The copy holds one committed state of the source:
    /// every save up to some point, none after it. Restoring is the same call the other way
    /// round, with the live store removed from the coordinator first.
    ///
    /// For example:
    ///
    /// ```swift
    /// let coordinator = container.persistentStoreCoordinator
    /// // a backup, while the app keeps saving
    /// try coordinator.replacePersistentStore(at: backupURL, withPersistentStoreFrom: storeURL, type: .sqlite)
    /// // restoring it later
    /// if let store = coordinator.persistentStore(for: storeURL) { try coordinator.removePersistentStore(store) }
    /// try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: backupURL, type: .sqlite)
    /// try coordinator.addPersistentStore(with: PersistentStoreDescription(type: .sqlite, url: storeURL))
    /// ```
    ///
    /// The copy is the source's twin, store UUID included (as in Core Data): load it in place of
    /// the source, not beside it in the same coordinator.
    ///
    /// - Parameters:
    ///   - destinationURL: Where the copy goes: a store of `type` that is not loaded by this
    ///     coordinator, or nothing yet (its directory must exist).
    ///   - destinationOptions: The options the destination is loaded with (SQLite: the busy
    ///     timeout, `description.timeout`).
    ///   - sourceURL: The store to copy; it must exist, and may be loaded and in use.
    ///   - sourceOptions: The options the source is loaded with.
    ///   - type: The type of both stores.
    /// - Throws: ``StoreError``, and nothing is changed: `unknownStoreType` (or
    ///   `storeTypeUnavailable`) for a type that is not registered; `unsupportedRequest` for a type
    ///   without files (in-memory, PostgreSQL); `invalidOption` for a URL that is not a file's, or
    ///   the same store as source and destination; `io` when there is no store at `sourceURL`;
    ///   `wrongFormat` when the source, or a file at the destination, is not a store of `type`;
    ///   `storeAlreadyLoaded` when this coordinator has the destination loaded (remove it first).
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [PersistentStoreOption: StoreValue] = [:],
        withPersistentStoreFrom sourceURL: URL, sourceOptions: [PersistentStoreOption: StoreValue] = [:],
        type: PersistentStoreType
    ) throws {
        let operations = try PersistentStoreRegistry.fileOperations(for: type, url: destinationURL, doing: "replaced")
        try Self.checkFileURL(sourceURL, role: "source")
        try Self.checkFileURL(destinationURL, role: "destination")
        guard sourceURL.standardizedFileURL.path != destinationURL.standardizedFileURL.path else {
            throw StoreError(.invalidOption, url: sourceURL, "the source and the destination are the same store; nothing was replaced")
        }
        try checkNotLoaded(destinationURL, doing: "replacing")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: sourceURL.path, isDirectory: &isDirectory) else {
            throw StoreError(.io, url: sourceURL, "there is no store at the source; nothing was replaced")
        }
        guard !isDirectory.boolValue else {
            throw StoreError(.wrongFormat, url: sourceURL, "the source is a directory, not a \(type.rawValue) store; nothing was replaced")
        }
        if FileManager.default.fileExists(atPath: destinationURL.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError(.wrongFormat, url: destinationURL, "the destination is a directory, not a \(type.rawValue) store; nothing was replaced")
        }
        guard FileManager.default.fileExists(atPath: destinationURL.deletingLastPathComponent().path) else {
            throw StoreError(.io, url: destinationURL, "the destination's directory does not exist; nothing was replaced")
        }
        try operations.replaceStore(
            at: destinationURL, destinationOptions: destinationOptions, withStoreFrom: sourceURL, sourceOptions: sourceOptions)
    }

    /// Removes the store at `url` and every file its type keeps beside it — for SQLite the
    /// database, its `-wal`, `-shm` and `-journal` files and the `.<name>_SUPPORT` folder of
    /// external binary data — leaving nothing behind (Core Data's
    /// `destroyPersistentStore(at:type:options:)`). When nothing is there, there is nothing to
    /// do and the call returns.
    ///
    /// For example:
    ///
    /// ```swift
    /// let coordinator = container.persistentStoreCoordinator
    /// if let store = coordinator.persistentStore(for: storeURL) { try coordinator.removePersistentStore(store) }
    /// try coordinator.destroyPersistentStore(at: storeURL, type: .sqlite)
    /// try coordinator.addPersistentStore(with: PersistentStoreDescription(type: .sqlite, url: storeURL))   // a new, empty store
    /// ```
    ///
    /// Close the store everywhere first: this coordinator refuses to destroy a store it has
    /// loaded, and another coordinator or process that still has the files open keeps using the
    /// removed files (its later saves are lost).
    ///
    /// - Parameters:
    ///   - url: The store's file.
    ///   - type: Its type.
    ///   - options: The options the store is loaded with.
    /// - Throws: ``StoreError``, and nothing is removed: `unknownStoreType` (or
    ///   `storeTypeUnavailable`) for a type that is not registered; `unsupportedRequest` for a type
    ///   without files; `invalidOption` for a URL that is not a file's; `wrongFormat` when the file
    ///   is not a store of `type`; `storeAlreadyLoaded` when this coordinator has it loaded.
    public func destroyPersistentStore(at url: URL, type: PersistentStoreType, options: [PersistentStoreOption: StoreValue] = [:]) throws {
        let operations = try PersistentStoreRegistry.fileOperations(for: type, url: url, doing: "destroyed")
        try Self.checkFileURL(url, role: "store")
        try checkNotLoaded(url, doing: "destroying")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError(.wrongFormat, url: url, "this is a directory, not a \(type.rawValue) store; nothing was removed")
        }
        try operations.destroyStore(at: url, options: options)
    }

    private static func checkFileURL(_ url: URL, role: String) throws {
        guard url.isFileURL, url.path != "/dev/null" else {
            throw StoreError(.invalidOption, url: url, "the \(role) must be a store file's URL; nothing was changed")
        }
    }

    private func checkNotLoaded(_ url: URL, doing action: String) throws {
        guard persistentStore(for: url) == nil else {
            throw StoreError(
                .storeAlreadyLoaded, url: url,
                "this coordinator has the store loaded; remove it (removePersistentStore) before \(action) it, and add it again after; nothing was changed")
        }
    }
}
