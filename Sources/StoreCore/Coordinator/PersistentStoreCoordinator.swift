import Foundation
import Synchronization

/// Connects contexts to stores: loads stores from descriptions, routes each entity to the
/// store whose configuration holds it and assigns permanent IDs.
///
/// The coordinator keeps no copy of the rows it hands out: an object's values are the snapshot
/// it was loaded from (shared, not copied), so the memory a fetch takes is released with the
/// objects, and a fault is fulfilled from its store (SQLite: one indexed read).
///
/// For example:
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(with: PersistentStoreDescription(type: .inMemory))
/// let context = ManagedObjectContext(concurrencyType: .privateQueue)
/// context.persistentStoreCoordinator = coordinator
/// ```
public final class PersistentStoreCoordinator: @unchecked Sendable {
    // @unchecked: every mutable field lives inside `state`, a Mutex.

    /// The model every store of the coordinator holds (part of).
    public let managedObjectModel: ManagedObjectModel

    private struct State {
        var stores: [any PersistentStore] = []
        var contexts: [WeakContext] = []
        /// Remote-change watchers, by store identifier.
        var watchers: [String: RemoteChangeWatcher] = [:]
        /// Live queries told of every commit to the stores, by subscription.
        var commitObservers: [UUID: @Sendable (StoreCommit) -> Void] = [:]
        /// Counts the writes through the coordinator (``writeCount``).
        var writes = 0
    }
    private let state = Mutex(State())

    /// Moves every time the stores' objects may have changed through this coordinator or as one
    /// of its stores announced: after a save (failed ones too), a batch request, another
    /// coordinator's or process's commit that a store with remote change notifications posted,
    /// a store added, removed or replaced. Rows read while it had one value are current as long
    /// as it keeps it (a batched fetch's rows read ahead rely on this).
    var writeCount: Int { state.withLock { $0.writes } }

    /// Moves ``writeCount`` on: called after a write, so a reader that saw the old count before
    /// the write also sees the count move.
    func noteWrite() {
        state.withLock { $0.writes &+= 1 }
    }

    /// A coordinator with no stores yet, for `managedObjectModel` — Core Data's
    /// `NSPersistentStoreCoordinator(managedObjectModel:)`.
    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
    }

    /// The loaded stores, in the order they were added.
    public var persistentStores: [any PersistentStore] { state.withLock { $0.stores } }

    /// Loads a store and adds it. A store saved with an older version of the model is migrated
    /// first, when the description allows it (see docs/migration.md).
    ///
    /// - Throws: ``StoreError`` for an unknown type or a store that cannot be opened;
    ///   ``ModelError`` for an unknown configuration; ``MigrationError`` for a store that needs
    ///   a migration that cannot be inferred or fails (the store is then left as it was).
    @discardableResult
    public func addPersistentStore(with description: PersistentStoreDescription) throws -> any PersistentStore {
        _ = try managedObjectModel.entities(forConfiguration: description.configuration)
        if let url = description.url, persistentStore(for: url) != nil {
            throw StoreError(.storeAlreadyLoaded, url: url, "a store at this location is already loaded by this coordinator")
        }
        try migrateIfNeeded(description)
        let store = try PersistentStoreRegistry.makeStore(PersistentStoreLoadRequest(description: description, model: managedObjectModel))
        var watcher: RemoteChangeWatcher?
        if description.options[.remoteChangeNotificationPost] == .boolean(true) {
            guard let observable = store as? any ChangeObservableStore else {
                try? store.unload()
                throw StoreError(.invalidOption, url: description.url, "\(description.type.rawValue) stores cannot post remote change notifications")
            }
            watcher = try RemoteChangeWatcher(store: observable, coordinator: self)
        }
        state.withLock { state in
            state.stores.append(store)
            state.writes &+= 1
            if let watcher { state.watchers[store.identifier] = watcher }
        }
        return store
    }

    /// Removes a store; its objects can no longer be fetched or saved.
    public func removePersistentStore(_ store: any PersistentStore) throws {
        let removed = state.withLock { state -> Bool in
            guard let index = state.stores.firstIndex(where: { $0 === store }) else { return false }
            state.stores.remove(at: index)
            state.writes &+= 1
            state.watchers.removeValue(forKey: store.identifier)?.cancel()
            return true
        }
        guard removed else { throw StoreError(.wrongStore, url: store.url, "the store is not loaded by this coordinator") }
        try store.unload()
    }

    /// Puts `newStore` in `store`'s place (after a migration) and unloads `store`.
    func replace(_ store: any PersistentStore, with newStore: any PersistentStore) throws {
        state.withLock { state in
            state.stores = state.stores.map { $0 === store ? newStore : $0 }
            state.writes &+= 1
            state.watchers.removeValue(forKey: store.identifier)?.cancel()
        }
        try store.unload()
    }

    /// The loaded store at `url`.
    public func persistentStore(for url: URL) -> (any PersistentStore)? {
        let path = url.standardizedFileURL.path
        return persistentStores.first { $0.url?.standardizedFileURL.path == path }
    }

    /// The store that holds (or will hold) an object.
    public func persistentStore(for objectID: ManagedObjectID) -> (any PersistentStore)? {
        guard let identifier = objectID.storeIdentifier else { return try? store(forEntity: objectID.entityName) }
        return persistentStores.first { $0.identifier == identifier }
    }

    /// A store's metadata.
    public func metadata(for store: any PersistentStore) -> StoreMetadata { store.metadata }

    /// Replaces a store's metadata.
    public func setMetadata(_ metadata: StoreMetadata, for store: any PersistentStore) throws {
        guard !store.isReadOnly else { throw StoreError(.readOnly, url: store.url, "the store is read-only") }
        try store.setMetadata(metadata)
    }

    /// The ID an object URI names, if it belongs to a loaded store and a known entity.
    ///
    /// For example:
    ///
    /// ```swift
    /// let url = post.objectID.uriRepresentation
    /// let id = coordinator.managedObjectID(forURIRepresentation: url)   // == post.objectID
    /// ```
    public func managedObjectID(forURIRepresentation url: URL) -> ManagedObjectID? {
        guard let id = ManagedObjectID(uriRepresentation: url), managedObjectModel.entitiesByName[id.entityName] != nil else { return nil }
        if id.isTemporaryID { return id }
        return persistentStores.contains { $0.identifier == id.storeIdentifier } ? id : nil
    }

    // MARK: Routing

    /// The first store whose configuration holds the entity.
    func store(forEntity name: String) throws -> any PersistentStore {
        let stores = persistentStores
        guard !stores.isEmpty else { throw StoreError(.noStores, "the coordinator has no persistent stores; load them first") }
        for store in stores where storeHolds(store, entity: name) { return store }
        throw StoreError(.wrongStore, "no loaded store's configuration holds entity \(name)")
    }

    /// The loaded stores whose configuration holds entity `name`.
    func stores(holding name: String) -> [any PersistentStore] {
        persistentStores.filter { storeHolds($0, entity: name) }
    }

    private func storeHolds(_ store: any PersistentStore, entity name: String) -> Bool {
        guard let configuration = store.configurationName, configuration != "Default" else { return true }
        return ((try? managedObjectModel.entities(forConfiguration: configuration)) ?? []).contains { $0.name == name }
    }

    private func store(for objectID: ManagedObjectID) throws -> any PersistentStore {
        guard let store = persistentStore(for: objectID) else {
            throw StoreError(.wrongStore, objectID: objectID, "the object's store is not loaded by this coordinator")
        }
        return store
    }

    // MARK: Serving contexts

    /// Runs `request` on the stores that hold its entity. With `knownRows`, a single store that
    /// can leaves those rows' values unread (several stores' rows are sorted here by their values).
    func execute(_ request: StoreFetchRequest, knownRows: KnownRows? = nil) throws -> StoreFetchResult {
        _ = try managedObjectModel.entity(named: request.entityName)
        let stores = stores(holding: request.entityName)
        guard !stores.isEmpty else { throw StoreError(.noStores, "no loaded store holds entity \(request.entityName)") }
        if stores.count == 1 {
            if let knownRows, let store = stores[0] as? any KnownRowsFetching { return try store.execute(request, skippingValuesOf: knownRows) }
            return try stores[0].execute(request)
        }
        return try MultiStoreFetch(request: request, stores: stores, model: managedObjectModel).run()
    }

    func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        guard !objectID.isTemporaryID else { return nil }
        return try store(for: objectID).snapshot(for: objectID)
    }

    /// Snapshots of a batch of objects, in one request per store (leaving out those no store holds).
    package func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        try Self.snapshots(for: objectIDs) { try store(for: $0) }
    }

    /// Snapshots of a batch of objects, in one request to each reader `reader(id)` names (the
    /// stores, or a pinned generation's views), in the order of `objectIDs`.
    static func snapshots(for objectIDs: [ManagedObjectID], reader: (ManagedObjectID) throws -> any StoreReading) throws -> [StoreSnapshot] {
        // A batch of one entity in one store (a batched fetch's): no grouping, no string hashed per ID.
        if let first = objectIDs.first, !first.isTemporaryID, objectIDs.allSatisfy({ $0.space === first.space }) {
            return try reader(first).snapshots(for: objectIDs)
        }
        var byStore: [String: [ManagedObjectID]] = [:]
        for id in objectIDs where !id.isTemporaryID { byStore[id.storeIdentifier ?? "", default: []].append(id) }
        if byStore.count == 1, let (_, ids) = byStore.first, let first = ids.first, ids.count == objectIDs.count {
            return try reader(first).snapshots(for: ids)
        }
        var found: [ManagedObjectID: StoreSnapshot] = [:]
        for (_, ids) in byStore {
            guard let first = ids.first else { continue }
            for snapshot in try reader(first).snapshots(for: ids) { found[snapshot.objectID] = snapshot }
        }
        return objectIDs.compactMap { found[$0] }
    }

    func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        guard !objectID.isTemporaryID else { return [] }
        return try store(for: objectID).objectIDs(forRelationship: name, of: objectID)
    }

    /// Permanent IDs for new objects, each from the store assigned to it (or its entity's store).
    func obtainPermanentIDs(for requests: [(entity: String, store: String?)]) throws -> [ManagedObjectID] {
        var result = [ManagedObjectID?](repeating: nil, count: requests.count)
        var byStore: [ObjectIdentifier: (store: any PersistentStore, positions: [Int])] = [:]
        let stores = persistentStores
        for (position, request) in requests.enumerated() {
            let store: any PersistentStore
            if let identifier = request.store, let assigned = stores.first(where: { $0.identifier == identifier }) {
                store = assigned
            } else {
                store = try self.store(forEntity: request.entity)
            }
            byStore[ObjectIdentifier(store), default: (store, [])].positions.append(position)
        }
        for (_, group) in byStore {
            let ids = try group.store.newObjectIDs(forEntityNames: group.positions.map { requests[$0].entity })
            guard ids.count == group.positions.count else {
                throw StoreError(.corrupt, url: group.store.url, "the store returned \(ids.count) IDs for \(group.positions.count) objects")
            }
            for (position, id) in zip(group.positions, ids) { result[position] = id }
        }
        return result.compactMap { $0 }
    }

    /// Gives new objects permanent IDs and saves the change set `makeChanges` builds with them:
    /// with one store, in one of its write transactions; otherwise IDs first, then store by store.
    /// The new objects come as runs of one entity and store (``NewObjectRun``); their IDs go to
    /// `makeChanges` as a compact list (as a store that saves runs, ``NewObjectRunSaving``, gives them).
    func save(
        newObjects runs: [NewObjectRun], _ makeChanges: (CompactObjectIDList) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        defer { noteWrite() }
        let stores = persistentStores
        if stores.count == 1, let store = stores.first,
            runs.allSatisfy({ $0.store == nil || $0.store == store.identifier }) {
            var checked: Set<String> = []
            for run in runs where checked.insert(run.entity).inserted {
                guard storeHolds(store, entity: run.entity) else {
                    throw StoreError(.wrongStore, "no loaded store's configuration holds entity \(run.entity)")
                }
            }
            try checkWritable(store)
            let count = NewObjectRun.objectCount(runs)
            func checkedChanges(_ ids: CompactObjectIDList) throws -> StoreChangeSet {
                guard ids.count == count else {
                    throw StoreError(.corrupt, url: store.url, "the store returned \(ids.count) IDs for \(count) objects")
                }
                let changes = try makeChanges(ids)
                guard changes.allBelong(to: store.identifier) else {
                    throw StoreError(.wrongStore, "changes name a store that is not loaded")
                }
                return changes
            }
            if let store = store as? any NewObjectRunSaving { return try store.save(newObjectRuns: runs, checkedChanges) }
            return try store.save(newObjectsOf: NewObjectRun.entityNames(runs)) { try checkedChanges(CompactObjectIDList(holding: $0)) }
        }
        let changes = try makeChanges(CompactObjectIDList(holding: runs.isEmpty ? [] : obtainPermanentIDs(for: NewObjectRun.requests(runs))))
        try save(changes)
        return changes
    }

    /// Saves a change set, store by store.
    func save(_ changes: StoreChangeSet) throws {
        defer { noteWrite() }
        let stores = persistentStores
        if stores.count == 1, let store = stores.first, changes.allBelong(to: store.identifier) {
            try checkWritable(store)
            try store.save(changes)
            return
        }
        var byStore: [String: StoreChangeSet] = [:]
        func bucket(_ id: ManagedObjectID) -> String { id.storeIdentifier ?? "" }
        for snapshot in changes.inserted { byStore[bucket(snapshot.objectID), default: Self.emptySet(like: changes)].inserted.append(snapshot) }
        for snapshot in changes.updated { byStore[bucket(snapshot.objectID), default: Self.emptySet(like: changes)].updated.append(snapshot) }
        for snapshot in changes.deleted { byStore[bucket(snapshot.objectID), default: Self.emptySet(like: changes)].deleted.append(snapshot) }
        for (identifier, set) in byStore.sorted(by: { $0.key < $1.key }) {
            guard let store = stores.first(where: { $0.identifier == identifier }) else {
                throw StoreError(.wrongStore, "changes name store \(identifier), which is not loaded")
            }
            try checkWritable(store)
            try store.save(set)
        }
    }

    private func checkWritable(_ store: any PersistentStore) throws {
        guard store.isReadOnly else { return }
        let why = managedObjectModel.isInferred ? " (it was opened in inspection mode, with a model inferred from the file)" : ""
        throw StoreError(.readOnly, url: store.url, "the store is read-only\(why); nothing was saved")
    }

    private static func emptySet(like changes: StoreChangeSet) -> StoreChangeSet {
        var set = StoreChangeSet()
        set.contextName = changes.contextName
        set.transactionAuthor = changes.transactionAuthor
        return set
    }

    // MARK: Contexts that merge saves automatically

    func register(_ context: ManagedObjectContext) {
        state.withLock { state in
            state.contexts.removeAll { $0.context == nil || $0.context === context }
            state.contexts.append(WeakContext(context))
        }
    }

    /// Lets the other root contexts merge a save and tells the commit observers (live queries)
    /// which entities it touched; `entityNames` is called only when someone observes commits.
    func contextDidSave(_ changes: ContextChanges, entityNames: () -> Set<String>, from source: ManagedObjectContext) {
        let (others, observed) = state.withLock { state in
            (state.contexts.compactMap(\.context).filter { $0 !== source && $0.parent == nil }, !state.commitObservers.isEmpty)
        }
        for context in others { context.mergeAutomatically(changes) }
        if observed { didCommit(StoreCommit(entityNames: entityNames())) }
    }

    // MARK: Commits, for live queries

    /// Calls `observer` after every commit to the coordinator's stores: a root context's save,
    /// a batch request, or (for stores loaded with remote change notifications) another
    /// coordinator's or process's commit. Returns the subscription to pass to ``removeCommitObserver(_:)``.
    func addCommitObserver(_ observer: @escaping @Sendable (StoreCommit) -> Void) -> UUID {
        let id = UUID()
        state.withLock { $0.commitObservers[id] = observer }
        return id
    }

    func removeCommitObserver(_ id: UUID) {
        _ = state.withLock { $0.commitObservers.removeValue(forKey: id) }
    }

    func didCommit(_ commit: StoreCommit) {
        for observer in state.withLock({ Array($0.commitObservers.values) }) { observer(commit) }
    }
}

extension StoreChangeSet {
    /// Whether every object of the set belongs to the store `identifier`.
    func allBelong(to identifier: String) -> Bool {
        inserted.allSatisfy { $0.objectID.storeIdentifier == identifier }
            && updated.allSatisfy { $0.objectID.storeIdentifier == identifier }
            && deleted.allSatisfy { $0.objectID.storeIdentifier == identifier }
    }
}

extension PersistentStoreCoordinator: ObjectStoreParent {
    func fetchForChild(_ request: StoreFetchRequest) throws -> StoreFetchResult { try execute(request) }
    func fetchForChild(_ request: StoreFetchRequest, knownRows: KnownRows) throws -> StoreFetchResult {
        try execute(request, knownRows: knownRows)
    }
    func snapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot? { try snapshot(for: objectID) }
    func snapshotsForChild(_ objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] { try snapshots(for: objectIDs) }
    func relationshipForChild(_ name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        try objectIDs(forRelationship: name, of: objectID)
    }
    func committedSnapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot? { try snapshot(for: objectID) }
    var readAheadMark: Int? { writeCount }

    /// Started ahead when the IDs are of one entity in one store that can (``SnapshotReadingAhead``).
    func startSnapshotsForChild(_ objectIDs: [ManagedObjectID]) -> PendingSnapshots? {
        guard let first = objectIDs.first, !first.isTemporaryID, objectIDs.allSatisfy({ $0.space === first.space }),
            let store = persistentStore(for: first) as? any SnapshotReadingAhead
        else { return nil }
        return store.startReadingSnapshots(for: objectIDs)
    }

    /// How many reads the store holding `objectID` keeps under way for a batched fetch.
    func readsUnderWay(for objectID: ManagedObjectID) -> Int {
        guard !objectID.isTemporaryID, let store = persistentStore(for: objectID) as? any SnapshotReadingAhead else {
            return BatchReadAhead.maximumPendingReads
        }
        return store.readsUnderWay
    }

    /// Straight from the store when one store that reads compact lists holds the entity.
    func objectIDListForChild(_ request: StoreFetchRequest) throws -> CompactObjectIDList {
        _ = try managedObjectModel.entity(named: request.entityName)
        let stores = persistentStores.filter { storeHolds($0, entity: request.entityName) }
        if stores.count == 1, let store = stores[0] as? any ObjectIDListFetching { return try store.objectIDList(request) }
        guard case .objectIDs(let ids) = try execute(request) else {
            throw FetchError(.wrongResultType, "the store did not return object IDs for an object-ID fetch")
        }
        return CompactObjectIDList(ids)
    }
}
