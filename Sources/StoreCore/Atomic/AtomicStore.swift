import Foundation
import Synchronization

/// The atomic-store engine: the whole object graph held in memory as snapshots, every fetch
/// evaluated in memory, and — for file-backed types — the whole file read when the store is
/// loaded and replaced atomically and durably by every save that changes something.
///
/// The in-memory store is this engine with no format; the XML and binary stores are this engine
/// with their file formats. Register your own whole-file format (``AtomicStoreFormat``) the same way:
///
/// ```swift
/// AtomicStore.register(PersistentStoreType(rawValue: "json"), format: JSONStoreFormat())
/// let description = PersistentStoreDescription(type: PersistentStoreType(rawValue: "json"), url: fileURL)
/// try container.persistentStoreCoordinator.addPersistentStore(with: description)
/// ```
///
/// A file is checked completely when it is loaded — format, model version, entities,
/// properties, value types and references — and a file that fails is never written to. A save
/// refuses to overwrite a file that another store or process replaced after this store read it.
public final class AtomicStore: PersistentStore {
    /// The store UUID read from the file's metadata, or a new UUID for a new file or an in-memory store.
    public let identifier: String
    /// The type the store was registered and loaded as (`.inMemory`, `.xml`, `.binary` or your own).
    public let type: PersistentStoreType
    /// The store file's URL; for an in-memory store, whatever the description named (usually `nil`).
    public let url: URL?
    /// The configuration named by the store's description (`nil`: every entity).
    public let configurationName: String?
    /// Whether the description asked for read-only; saves, metadata changes and history deletion then throw
    /// `readOnly`, and the file is never written.
    public let isReadOnly: Bool
    /// The file format, or `nil` for a store held only in memory.
    public let format: (any AtomicStoreFormat)?

    private struct State {
        var graph: SnapshotGraph
        var metadata: StoreMetadata
        var preservedMetadata: [String: PropertyListValue] = [:]
        var nextPrimaryKey: Int64 = 1
        /// One ID per entity whose entity-and-store part new IDs share.
        var idPrototypes: [String: ManagedObjectID] = [:]
        /// The file as this store last read or wrote it.
        var fileIdentity: DurableFile.Identity?
        /// The persistent history, when the store records it.
        var history: AtomicHistoryLog?
        /// History a file holds while this store does not record it, written back unchanged.
        var untrackedHistory: StoreValue?
    }
    private let state: Mutex<State>
    /// The model the store's snapshots are laid out by.
    public let model: ManagedObjectModel

    /// Registers a store type served by this engine with the given file format (`nil`: in
    /// memory), and for a file format its migrator (``AtomicStoreMigrator``), metadata reader
    /// (``AtomicStoreFormat/readMetadata(_:)``) and file operations (replacing and destroying
    /// store files: a durable copy of the one file).
    public static func register(_ type: PersistentStoreType, format: (any AtomicStoreFormat)?) {
        PersistentStoreRegistry.register(type) { try AtomicStore($0, type: type, format: format) }
        guard let format else { return }
        PersistentStoreRegistry.registerMigrator(AtomicStoreMigrator(format: format), for: type)
        PersistentStoreRegistry.registerFileOperations(AtomicStoreFileOperations(type: type, format: format), for: type)
        PersistentStoreRegistry.registerMetadataReader(for: type) { url in
            let data: Data
            do {
                data = try Data(contentsOf: url, options: .mappedIfSafe)
            } catch {
                throw StoreError(.io, url: url, "the store file cannot be read: \(error.localizedDescription)", underlying: error)
            }
            do {
                return try format.readMetadata(data)
            } catch let error as StoreError where error.url == nil {
                throw StoreError(error.code, url: url, error.message)
            }
        }
    }

    /// Opens the store a description names: reads its file (creating it when there is none), or
    /// starts empty when `format` is `nil`.
    ///
    /// - Throws: ``StoreError``: `invalidOption` without a file URL;
    ///   `incompatibleModel` for a file of another model; the format's and the
    ///   engine's errors for a file that cannot be read. The file is never changed by a failed load.
    public init(_ request: PersistentStoreLoadRequest, type: PersistentStoreType, format: (any AtomicStoreFormat)?) throws {
        let description = request.description
        let model = request.model
        _ = try model.entities(forConfiguration: description.configuration)
        self.model = model
        self.type = type
        self.format = format
        url = description.url
        configurationName = description.configuration
        isReadOnly = description.isReadOnly
        var state = State(
            graph: SnapshotGraph(model: model),
            // Core Data's hashes, as Core Data's own XML and binary stores record them.
            metadata: StoreMetadata(storeType: type.rawValue, modelVersionHashes: model.coreDataEntityVersionHashesByName))
        if let format {
            guard let url = description.url else {
                throw StoreError(.invalidOption, "a \(type.rawValue) store needs a file URL in its description")
            }
            if !description.isReadOnly { DurableFile.removeStaleTemporaryFiles(of: url) }
            if let existing = DurableFile.identity(of: url) {
                guard existing.size > 0 else {
                    throw StoreError(.wrongFormat, url: url, "the file is empty, so it is not a store of type \(type.rawValue); it was left untouched")
                }
                try Self.read(url, identity: existing, format: format, type: type, migrating: description.shouldMigrateStoreAutomatically, into: &state)
            } else if description.isReadOnly {
                throw StoreError(.io, url: url, "there is no store file to open read-only")
            } else {
                try Self.write(&state, format: format, to: url)
            }
        }
        identifier = state.metadata.storeUUID
        // History travels in the metadata as a binary property list, so every format keeps it;
        // users never see it among their metadata keys.
        let storedHistory = state.metadata.userInfo.removeValue(forKey: AtomicHistoryLog.metadataKey)
        if description.isHistoryTrackingEnabled {
            state.history = try AtomicHistoryLog(stored: storedHistory, storeIdentifier: identifier, model: model, url: url)
        } else {
            state.untrackedHistory = storedHistory
        }
        self.state = Mutex(state)
    }

    /// Reads the store file into `state`: graph, metadata and key counter.
    private static func read(
        _ url: URL, identity: DurableFile.Identity, format: any AtomicStoreFormat, type: PersistentStoreType, migrating: Bool, into state: inout State
    ) throws {
        let model = state.graph.model
        var file = try format.read(try DurableFile.read(url), model: model)
        try Self.checkModel(of: file, against: model, migrating: migrating, url: url)
        let highestKey = file.objects.withUnsafeBufferPointer { objects in
            objects.indices.reduce(Int64(0)) { max($0, objects[$1].primaryKey) }
        }
        state.metadata = file.metadata
        state.metadata.storeType = type.rawValue
        state.metadata.modelVersionHashes = model.coreDataEntityVersionHashesByName
        state.preservedMetadata = file.preservedMetadata
        state.nextPrimaryKey = max(file.nextPrimaryKey, highestKey == .max ? .max : highestKey + 1)
        state.fileIdentity = identity
        // Last: the graph takes the objects' values arrays as its snapshots' own.
        state.graph = try SnapshotGraph(taking: &file, model: model, storeIdentifier: state.metadata.storeUUID, url: url)
    }

    /// Reads the file again when another coordinator or process replaced it since this store
    /// read or wrote it, so that fetches see that save and this store's next save does not fail
    /// with `modifiedExternally`. The store's remote change watcher calls it; a file
    /// that cannot be read (or belongs to another store) is left alone and the store keeps what it had.
    ///
    /// - Returns: whether the store read the file again.
    @discardableResult
    public func reloadIfReplaced() -> Bool {
        guard let format, let url else { return false }
        return state.withLock { state in
            guard let current = DurableFile.identity(of: url), current != state.fileIdentity, current.size > 0 else { return false }
            var next = state
            guard (try? Self.read(url, identity: current, format: format, type: type, migrating: false, into: &next)) != nil,
                next.metadata.storeUUID == identifier
            else { return false }
            let storedHistory = next.metadata.userInfo.removeValue(forKey: AtomicHistoryLog.metadataKey)
            if state.history != nil {
                guard let history = try? AtomicHistoryLog(stored: storedHistory, storeIdentifier: identifier, model: model, url: url) else { return false }
                next.history = history
            } else {
                next.untrackedHistory = storedHistory
            }
            next.idPrototypes = [:]
            state = next
            return true
        }
    }

    /// Refuses a file saved with another model, unless migration was asked for and every entity
    /// the file's version hashes name is still in the model (objects are then read by name, and
    /// properties the model no longer has are reported when the objects are read). The hashes
    /// may be Core Data's (what stores record now) or Stowage's own (what earlier Stowage wrote).
    private static func checkModel(of file: AtomicStoreFile, against model: ManagedObjectModel, migrating: Bool, url: URL) throws {
        let stored = file.metadata.modelVersionHashes
        guard !stored.isEmpty, stored != model.entityVersionHashesByName else { return }
        let current = model.coreDataEntityVersionHashesByName
        guard stored != current else { return }
        let changed = Set(stored.keys).union(current.keys).filter { stored[$0] != current[$0] }.sorted()
        let missing = stored.keys.filter { current[$0] == nil }.sorted()
        guard migrating else {
            throw StoreError(
                .incompatibleModel, url: url,
                "the store was saved with a different model (entities differing: \(changed.joined(separator: ", "))) and migration was not asked for")
        }
        guard missing.isEmpty else {
            throw StoreError(.incompatibleModel, url: url, "the store holds entities the model does not have: \(missing.joined(separator: ", "))")
        }
    }

    private static func write(_ state: inout State, format: any AtomicStoreFormat, to url: URL) throws {
        var metadata = state.metadata
        metadata.userInfo[AtomicHistoryLog.metadataKey] = state.history.map { .data($0.encoded) } ?? state.untrackedHistory
        var file = state.graph.file(metadata: metadata, nextPrimaryKey: state.nextPrimaryKey)
        file.preservedMetadata = state.preservedMetadata
        let data = try format.write(file, model: state.graph.model)
        if let expected = state.fileIdentity, DurableFile.identity(of: url) != expected {
            throw StoreError(.modifiedExternally, url: url, "the store file was replaced after this store read it (by another coordinator or process); nothing was saved — load the store again")
        }
        try DurableFile.replace(url, with: data)
        state.fileIdentity = DurableFile.identity(of: url)
    }

    /// The metadata held in memory (read from the file when loaded), without the persistent history that
    /// travels in the file's metadata.
    public var metadata: StoreMetadata { state.withLock { $0.metadata } }

    /// Keeps the store's UUID and type and, when anything changed, replaces the whole file (in-memory
    /// stores just hold it); throws `readOnly` for a read-only store.
    public func setMetadata(_ metadata: StoreMetadata) throws {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only") }
        try state.withLock { state in
            var updated = metadata
            updated.storeUUID = state.metadata.storeUUID
            updated.storeType = state.metadata.storeType
            updated.userInfo[AtomicHistoryLog.metadataKey] = nil  // the store's own
            guard updated != state.metadata else { return }
            var next = state
            next.metadata = updated
            if let format, let url { try Self.write(&next, format: format, to: url) }
            state = next
        }
    }

    /// Evaluates the request in memory over the entity's snapshots (and its subentities' when asked),
    /// under the store's lock.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try state.withLock { try $0.graph.execute(request) }
    }

    /// The object's snapshot from the in-memory graph; `nil` when the graph does not hold it.
    public func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        state.withLock { $0.graph[objectID] }
    }

    /// The graph as it is now (a value: later saves do not change it).
    var currentGraph: SnapshotGraph { state.withLock { $0.graph } }

    /// The IDs the owner's snapshot holds for the to-many relationship; empty when the graph lacks the owner.
    public func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        state.withLock { $0.graph.objectIDs(forRelationship: name, of: objectID) }
    }

    /// IDs from the store's key counter (written to the file with the next save); throws `corrupt` once
    /// the counter would pass `Int64.max`.
    public func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        try state.withLock { state throws(StoreError) in
            guard state.nextPrimaryKey <= Int64.max - Int64(entityNames.count) else {
                throw StoreError(.corrupt, url: url, "the store has no primary key left for \(entityNames.count) new objects")
            }
            return entityNames.map { name in
                defer { state.nextPrimaryKey += 1 }
                if let prototype = state.idPrototypes[name] {
                    return ManagedObjectID(primaryKey: state.nextPrimaryKey, sameEntityAndStoreAs: prototype)
                }
                let id = ManagedObjectID(entityName: name, storeIdentifier: identifier, primaryKey: state.nextPrimaryKey)
                state.idPrototypes[name] = id
                return id
            }
        }
    }

    /// Applies a change set; file-backed stores then replace their file, and keep the change
    /// only if the file was written.
    public func save(_ changes: StoreChangeSet) throws {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was saved") }
        for snapshot in [changes.inserted, changes.updated, changes.deleted].joined() where snapshot.objectID.storeIdentifier != identifier {
            throw StoreError(.wrongStore, objectID: snapshot.objectID, "the change names an object of another store")
        }
        guard !changes.isEmpty else { return }
        try state.withLock { state in
            var next = state
            if next.history != nil {
                let graph = state.graph
                next.history?.append(HistoryRecord(changes, model: graph.model, current: { graph[$0] }))
            }
            try next.graph.apply(changes)
            if let format, let url { try Self.write(&next, format: format, to: url) }
            state = next
        }
    }

    /// Does nothing: the store holds no open files or connections.
    public func unload() throws {}
}

extension AtomicStore: PersistentHistoryStore {
    /// Whether the store was loaded with history tracking on (the history travels in the file's metadata).
    public var isHistoryTrackingEnabled: Bool { state.withLock { $0.history != nil } }

    /// Fetches or deletes transactions from the in-memory history log; a deletion that removes any rewrites
    /// the file. Throws `unsupportedRequest` unless history tracking is on, and
    /// `persistentHistoryTokenExpired` for a fetch after a token older than deleted history.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let filter = PersistentHistoryFilter(request, storeIdentifier: identifier)
        return try state.withLock { state in
            guard let history = state.history else {
                throw StoreError(.unsupportedRequest, url: url, "the store does not record persistent history; load it with the persistentHistoryTracking option")
            }
            switch request.operation {
            case .fetch:
                try filter.checkToken(purgedThrough: history.purgedThrough, url: url)
                return try filter.result(from: history.transactions)
            case .delete:
                guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; no history was deleted") }
                var next = state
                let count = next.history?.delete(filter) ?? 0
                if count > 0, let format, let url { try Self.write(&next, format: format, to: url) }
                state = next
                return request.resultType == .count ? .count(count) : .status(true)
            }
        }
    }

    /// The token of the last recorded transaction; `nil` with tracking off or no transaction yet.
    public func currentHistoryToken() throws -> PersistentHistoryToken? {
        state.withLock { $0.history?.currentToken }
    }
}

extension AtomicStore: ChangeObservableStore {
    /// A probe of the file's identity (device, inode, size, modification time), which every save
    /// by any process changes, since saves replace the file.
    public func makeChangeProbe() throws -> @Sendable () throws -> String {
        guard let url, format != nil else {
            throw StoreError(.invalidOption, "a store held only in memory has no file for others to change; remote change notifications need a file-backed store")
        }
        return { DurableFile.identity(of: url).map { "\($0)" } ?? "none" }
    }
}
