import Foundation
import Synchronization

/// A scratch pad of managed objects: it tracks what you insert, change and delete, applies
/// delete rules and inverses, validates, and saves everything together — to its coordinator's
/// stores (a root context) or into its parent context (a child context).
///
/// A context and its objects belong to its queue. Use a private-queue context inside
/// ``perform(_:)`` or ``performAndWait(_:)``; use a main-queue context on the main thread.
/// Set `STOWAGE_CONCURRENCY_DEBUG=1` to trap any access from another queue.
///
/// For example:
///
/// ```swift
/// let context = container.newBackgroundContext()
/// try await context.perform {
///     let post = try Post(context: context)
///     post.title = "Misty Morning"
///     try context.save()
/// }
/// ```
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: all mutable state is confined to `queue` (the Core Data contract); the
    // concurrency debug mode traps any access from elsewhere. State shared with other threads
    // (`observers`, `children`) is guarded by mutexes.

    /// Which queue a context uses.
    ///
    /// For example:
    ///
    /// ```swift
    /// let editor = ManagedObjectContext(concurrencyType: .privateQueue)   // use it inside perform
    /// editor.parent = container.viewContext
    /// container.viewContext.concurrencyType                              // .mainQueue
    /// ```
    public enum ConcurrencyType: Sendable {
        /// Its own serial queue; use it through `perform` / `performAndWait`.
        case privateQueue
        /// The main queue; use it on the main thread.
        case mainQueue
    }

    /// The context's queue kind.
    public let concurrencyType: ConcurrencyType
    /// A name for debugging, notifications and history.
    public var name: String?
    /// The author recorded in persistent history for this context's saves.
    public var transactionAuthor: String?
    /// How save conflicts with changes made elsewhere are resolved.
    public var mergePolicy: MergePolicy = .error
    /// Whether the context keeps every object it registered alive (Core Data's property, off by
    /// default). When off, objects without unsaved changes that nothing outside the context
    /// references any more are let go as the context grows; asking for one again
    /// (`object(with:)`, a fetch, a relationship) gives a fault with the same ID that reloads its
    /// values. Objects with unsaved changes always stay.
    ///
    /// For example:
    ///
    /// ```swift
    /// context.retainsRegisteredObjects = true   // keep every fetched object registered
    /// ```
    public var retainsRegisteredObjects = false
    /// The number of registered objects after the last release pass.
    var registeredAfterRelease = 0

    /// Whether a fault whose object no longer exists fires as a deleted object with empty values
    /// (on, Core Data's default) instead of failing; see ``shouldHandleInaccessibleFault(_:for:triggeredByProperty:)``.
    public var shouldDeleteInaccessibleFaults = true
    /// Decides, per fault, what ``shouldDeleteInaccessibleFaults`` decides for all (Core Data
    /// subclasses override `shouldHandleInaccessibleFault`; Stowage contexts take a closure).
    ///
    /// For example:
    ///
    /// ```swift
    /// context.inaccessibleFaultHandler = { fault, id, property in fault.entity.name != "Invoice" }
    /// ```
    public var inaccessibleFaultHandler: ((ManagedObject, ManagedObjectID, PropertyDescription?) -> Bool)?
    /// How long values a fetch brought may fill a fault later, in seconds: negative (the
    /// default) for as long as the fault waits, 0 to always read the store when a fault fires.
    ///
    /// For example:
    ///
    /// ```swift
    /// context.stalenessInterval = 0   // every fault reads the latest stored values
    /// ```
    public var stalenessInterval: TimeInterval = -1
    /// Records every change of the context's objects for undo, one group per event; `nil` (the
    /// default, as in Core Data) records nothing. See ``StoreUndoManager``.
    ///
    /// For example:
    ///
    /// ```swift
    /// context.undoManager = StoreUndoManager()   // UndoManager() on Linux
    /// context.delete(post)                 // and, by cascade, its comments
    /// context.processPendingChanges()
    /// context.undoManager?.undo()          // post and comments are back, with their relationships
    /// ```
    public var undoManager: StoreUndoManager? {
        didSet {
            guard oldValue !== undoManager else { return }
            if let oldValue { oldValue.checkpointHandlers[ObjectIdentifier(self)] = nil } else { UndoRecording.activeContexts.add(1, ordering: .relaxed) }
            if let undoManager {
                undoManager.checkpointHandlers[ObjectIdentifier(self)] = { [weak self] in self?.processPendingChanges() }
            } else {
                UndoRecording.activeContexts.subtract(1, ordering: .relaxed)
            }
            undoRecord = UndoRecord()
        }
    }
    /// The pinned query generation's reader, when the context is pinned.
    var generationReader: GenerationReader?
    /// The changes of the open undo group.
    var undoRecord = UndoRecord()
    /// Whether an undo or redo is putting objects back (their changes are not recorded again).
    var isApplyingUndo = false

    /// Anything you want to keep with the context.
    public var userInfo: [AnyHashable: Any] = [:]

    /// Whether the context merges saves made by its parent (or, for a root context, by other
    /// contexts of its coordinator) as they happen.
    public var automaticallyMergesChangesFromParent = false

    /// The coordinator this context (or its root ancestor) saves through.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { coordinatorStorage ?? parent?.persistentStoreCoordinator }
        set {
            coordinatorStorage = newValue
            newValue?.register(self)
        }
    }
    private var coordinatorStorage: PersistentStoreCoordinator?

    /// The parent context, for a child context; saving pushes changes into it.
    public var parent: ManagedObjectContext? {
        didSet {
            oldValue?.children.withLock { $0.removeAll { $0.context === self } }
            parent?.children.withLock { $0.append(WeakContext(self)) }
        }
    }

    let queue: DispatchQueue
    let queueToken: Int
    /// What this context's objects reach it through.
    let link = ContextLink()

    // Confined state. The tables every fetched, inserted or saved object passes through skip
    // the runtime's exclusivity checks: the context is confined to its queue, and no access to
    // them calls back into code that reaches them again.
    @exclusivity(unchecked) var registered = RegistrationTable()
    @exclusivity(unchecked) var insertedSet = ChangedObjectList()
    @exclusivity(unchecked) var updatedSet = ChangedObjectList()
    @exclusivity(unchecked) var deletedSet = ChangedObjectList()
    @exclusivity(unchecked) var pendingDeletions: [ManagedObject] = []
    /// Whether an inserted object was deleted since delete rules last ran (it leaves the context
    /// once they have).
    var deletedInsertedObjects = false
    var deniedDeletions: [ObjectIdentifier: ManagedObject] = [:]
    var assignedStores: [ObjectIdentifier: String] = [:]
    /// Unchecked like the lists above (each insert, change and delete notes its object here;
    /// the checks were two fifths of a large delete's `delete` calls).
    @exclusivity(unchecked) var pendingChanges = PendingChanges()
    var isSaving = false
    /// What the running save's objects-did-change carried, for its will-save and did-save (`nil`
    /// between saves).
    var saveNotificationSets: SaveNotificationSets?
    /// How many times an object was given another ID (``reassign(_:to:)``): kept ID sets of
    /// inserted objects hold their IDs of that moment.
    var reassignments = 0
    /// How many updated objects a save may have for it to keep their ID set, made for its
    /// objects-did-change, until its did-save. A larger save lets the set go after will-save and
    /// makes it again for did-save: a million IDs held 34 MB through the writing of the change
    /// set (the save's peak), while hashing them again costs a save of 100,000 a twentieth of its
    /// time. Internal and settable for tests.
    var updatedIDSetReuseLimit = 250_000
    /// Saves check each object's attributes only, leaving required relationships, relationship
    /// counts and `validateForInsert`/`validateForUpdate` to the caller — a migration manager's
    /// batches are saved before every relationship is set, and checked once all are.
    var defersRelationshipValidation = false
    /// Objects ``detectConflicts(for:)`` marked for the next save.
    var conflictCheckedObjects: [ObjectIdentifier: ManagedObject] = [:]
    /// Rows the next save writes straight into the store (``insertRowsWithNextSave(_:)``).
    var pendingRowInsertions: [StoreRowInsertion] = []
    /// The fetched results controllers following this context's changes.
    var objectsListeners: [WeakObjectsListener] = []

    /// The objects changed since the last objects-did-change, listed in order and made sets once
    /// by that notification (``PendingObjectList``): no set is grown one object at a time while a
    /// large change is made. An updated object is listed once (its `isPendingUpdate` flag).
    struct PendingChanges {
        var inserted = PendingObjectList()
        /// Take it with ``takeUpdated()``, which clears the objects' flags as it goes.
        private(set) var updated = PendingObjectList()
        var deleted = PendingObjectList()
        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

        /// Lists `object` among the updated objects, once (each of its changes calls this).
        mutating func noteUpdate(of object: ManagedObject) {
            guard !object.state.isPendingUpdate else { return }
            object.state.isPendingUpdate = true
            updated.insert(object)
        }

        /// Hands over the updated objects, no longer marked as listed (the report of them asks
        /// each object's state as it goes, so the flags are cleared in the same pass).
        mutating func takeUpdated() -> PendingObjectList {
            var taken = PendingObjectList()
            swap(&taken, &updated)
            return taken
        }

        /// Forgets every change (the objects' flags cleared).
        mutating func removeAll() {
            for object in updated { object.state.isPendingUpdate = false }
            self = PendingChanges()
        }
    }

    // Shared state.
    let children = Mutex<[WeakContext]>([])
    let observers = Mutex<[UUID: ChangeObserver]>([:])

    private static let tokens = Atomic<Int>(0)
    static let queueKey = DispatchSpecificKey<Int>()

    /// Creates a context; give it a ``persistentStoreCoordinator`` or a ``parent`` before use.
    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        self.queueToken = Self.tokens.add(1, ordering: .relaxed).newValue
        switch concurrencyType {
        case .mainQueue:
            queue = .main
        case .privateQueue:
            queue = DispatchQueue(label: "stowage.context.\(queueToken)")
            queue.setSpecific(key: Self.queueKey, value: queueToken)
        }
        link.context = self
    }

    /// A context that runs on `other`'s queue: blocks of either run there, so one block may use
    /// both (a migration's source and destination contexts).
    init(sharingQueueWith other: ManagedObjectContext) {
        self.concurrencyType = other.concurrencyType
        self.queueToken = other.queueToken
        self.queue = other.queue
        link.context = self
    }

    deinit {
        if let undoManager {
            undoManager.checkpointHandlers[ObjectIdentifier(self)] = nil
            UndoRecording.activeContexts.subtract(1, ordering: .relaxed)
        }
        // Weak references to a context being deallocated read nil already: objects that outlive
        // it need only their relations let go of (no cycles) and to become faults.
        registered.forEachObject { $0.letGoOfRelations() }
    }

    /// Whether changes wait for ``processPendingChanges()``: deletions to propagate, or an
    /// objects-did-change event (or undo group) to close.
    var hasPendingEvent: Bool { !pendingChanges.isEmpty || !pendingDeletions.isEmpty }

    /// The model of the context's coordinator.
    public var managedObjectModel: ManagedObjectModel? { persistentStoreCoordinator?.managedObjectModel }

    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { checkQueue(accessing: nil); return Set(insertedSet.values) }
    /// Saved objects changed since the last save.
    public var updatedObjects: Set<ManagedObject> { checkQueue(accessing: nil); return Set(updatedSet.values) }
    /// Objects the next save deletes.
    public var deletedObjects: Set<ManagedObject> { checkQueue(accessing: nil); return Set(deletedSet.values) }
    /// Every object the context holds.
    public var registeredObjects: Set<ManagedObject> { checkQueue(accessing: nil); return Set(registered.objects) }
    /// Whether anything is inserted, updated or deleted.
    public var hasChanges: Bool {
        checkQueue(accessing: nil)
        return !insertedSet.isEmpty || !updatedSet.isEmpty || !deletedSet.isEmpty || !pendingDeletions.isEmpty
    }

    public var description: String {
        "<ManagedObjectContext \(name ?? "#\(queueToken)") \(concurrencyType == .mainQueue ? "main" : "private") queue>"
    }

    /// What this context reads from and saves to: its parent or its coordinator.
    func parentStore() throws -> any ObjectStoreParent {
        if let parent { return parent }
        if let generationReader { return generationReader }
        if let coordinatorStorage { return coordinatorStorage }
        throw StoreError(.noStores, "\(self) has neither a parent context nor a persistent store coordinator")
    }
}

/// A weak reference to a context, for lists of observers.
struct WeakContext {
    weak var context: ManagedObjectContext?
    init(_ context: ManagedObjectContext) { self.context = context }
}
