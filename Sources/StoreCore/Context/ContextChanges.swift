import Foundation

/// What changed in a context, by object ID: the `Sendable` form of Core Data's
/// objects-did-change, will-save and did-save notifications.
///
/// Receive it from ``ManagedObjectContext/changes(of:)`` as an async sequence, or from a
/// notification with ``Foundation/Notification/contextChanges``; hand it to another context's
/// ``ManagedObjectContext/mergeChanges(from:)``.
///
/// For example:
///
/// ```swift
/// for await saved in context.changes(of: .didSave) {
///     print("saved", saved.insertedObjectIDs.count, "new objects")
/// }
/// ```
public struct ContextChanges: Sendable, Hashable {
    /// Which event the changes describe.
    public enum Kind: Sendable, Hashable {
        /// Objects were inserted, updated, deleted, refreshed or invalidated — Core Data's
        /// `NSManagedObjectContextObjectsDidChange`.
        case objectsDidChange
        /// A save is starting, before validation; the IDs are the objects about to be saved — Core
        /// Data's `NSManagedObjectContextWillSave`.
        case willSave
        /// A save succeeded; the IDs are the objects saved — Core Data's `NSManagedObjectContextDidSave`.
        case didSave
    }

    /// Which event the changes describe: objects did change, will save or did save.
    public var kind: Kind
    /// The name of the context that made the changes.
    public var contextName: String?
    /// Objects inserted — Core Data's `NSInsertedObjectIDsKey`.
    public var insertedObjectIDs: Set<ManagedObjectID> {
        get { inserted.value }
        set { inserted.value = newValue }
        _modify { yield &inserted.value }
    }
    /// Objects updated — Core Data's `NSUpdatedObjectIDsKey`.
    public var updatedObjectIDs: Set<ManagedObjectID> {
        get { updated.value }
        set { updated.value = newValue }
        _modify { yield &updated.value }
    }
    /// Objects deleted — Core Data's `NSDeletedObjectIDsKey`.
    public var deletedObjectIDs: Set<ManagedObjectID> {
        get { deleted.value }
        set { deleted.value = newValue }
        _modify { yield &deleted.value }
    }
    /// Objects re-read from their store (after a merge or refresh).
    public var refreshedObjectIDs: Set<ManagedObjectID> {
        get { refreshed.value }
        set { refreshed.value = newValue }
        _modify { yield &refreshed.value }
    }
    /// Objects that no longer exist for the context (deleted elsewhere).
    public var invalidatedObjectIDs: Set<ManagedObjectID> {
        get { invalidated.value }
        set { invalidated.value = newValue }
        _modify { yield &invalidated.value }
    }

    // The sets, each hashed when first read (most changes a save describes are never read).
    private var inserted = LazyObjectIDSet()
    private var updated = LazyObjectIDSet()
    private var deleted = LazyObjectIDSet()
    private var refreshed = LazyObjectIDSet()
    private var invalidated = LazyObjectIDSet()

    /// Changes of `kind` made by the context named `contextName`, with no objects yet.
    public init(kind: Kind, contextName: String? = nil) {
        self.kind = kind
        self.contextName = contextName
    }

    /// Changes whose inserted, updated and deleted ID sets are made from these lists when first
    /// read.
    init(kind: Kind, contextName: String?, inserted: [ManagedObjectID], updated: [ManagedObjectID], deleted: [ManagedObjectID]) {
        self.init(kind: kind, contextName: contextName)
        self.inserted = LazyObjectIDSet(building: inserted)
        self.updated = LazyObjectIDSet(building: updated)
        self.deleted = LazyObjectIDSet(building: deleted)
    }

    /// Changes whose inserted IDs are made from a list when first read, and whose updated and
    /// deleted ID sets are ones another description of the same objects carries (built at most once
    /// for both).
    init(kind: Kind, contextName: String?, inserted: [ManagedObjectID], updated: LazyObjectIDSet, deleted: LazyObjectIDSet) {
        self.init(kind: kind, contextName: contextName)
        self.inserted = LazyObjectIDSet(building: inserted)
        self.updated = updated
        self.deleted = deleted
    }

    /// Changes whose inserted, updated and deleted ID sets are ones other descriptions of the same
    /// objects carry (each built at most once for all).
    init(kind: Kind, contextName: String?, inserted: LazyObjectIDSet, updated: LazyObjectIDSet, deleted: LazyObjectIDSet) {
        self.init(kind: kind, contextName: contextName)
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// The inserted IDs as they are held (a list not yet hashed, or the set), to share with other changes.
    var heldInsertedObjectIDs: LazyObjectIDSet { inserted }
    /// The updated IDs as they are held, to share with other changes.
    var heldUpdatedObjectIDs: LazyObjectIDSet { updated }
    /// The deleted IDs as they are held, to share with other changes.
    var heldDeletedObjectIDs: LazyObjectIDSet { deleted }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty
    }
}

extension Notification.Name {
    /// Posted by a context (the notification's object) when objects were inserted, updated or
    /// deleted; `userInfo` holds `Set<ManagedObject>` under the ``ManagedObjectContext/NotificationKey``s
    /// for objects (no ID sets, as in Core Data: `contextChanges` has the IDs).
    public static let managedObjectContextObjectsDidChange = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted at the start of a save, before validation.
    public static let managedObjectContextWillSave = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted after a successful save, with the saved objects and their IDs.
    public static let managedObjectContextDidSave = Notification.Name("NSManagedObjectContextDidSaveNotification")
    /// Posted after a successful save, with object IDs only (safe to hand to other threads).
    public static let managedObjectContextDidSaveObjectIDs = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
}

extension ManagedObjectContext {
    /// The keys of a context notification's `userInfo`, with Core Data's names.
    ///
    /// For example:
    ///
    /// ```swift
    /// let inserted = notification.userInfo?[ManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<ManagedObject>
    /// ```
    public enum NotificationKey: String, Sendable, CaseIterable {
        /// The inserted objects, a `Set<ManagedObject>` — Core Data's `NSInsertedObjectsKey`.
        case insertedObjects = "inserted"
        /// The updated objects, a `Set<ManagedObject>` — Core Data's `NSUpdatedObjectsKey`.
        case updatedObjects = "updated"
        /// The deleted objects, a `Set<ManagedObject>` — Core Data's `NSDeletedObjectsKey`.
        case deletedObjects = "deleted"
        /// The objects re-read from their store, a `Set<ManagedObject>` (only when there are some) —
        /// Core Data's `NSRefreshedObjectsKey`.
        case refreshedObjects = "refreshed"
        /// The objects that no longer exist for the context, a `Set<ManagedObject>` (only when there are
        /// some) — Core Data's `NSInvalidatedObjectsKey`.
        case invalidatedObjects = "invalidated"
        /// The inserted objects' IDs, a `Set<ManagedObjectID>` — Core Data's `NSInsertedObjectIDsKey`.
        case insertedObjectIDs = "inserted_objectIDs"
        /// The updated objects' IDs, a `Set<ManagedObjectID>` — Core Data's `NSUpdatedObjectIDsKey`.
        case updatedObjectIDs = "updated_objectIDs"
        /// The deleted objects' IDs, a `Set<ManagedObjectID>` — Core Data's `NSDeletedObjectIDsKey`.
        case deletedObjectIDs = "deleted_objectIDs"
        /// The refreshed objects' IDs, a `Set<ManagedObjectID>` (only when there are some) — Core Data's
        /// `NSRefreshedObjectIDsKey`.
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// The invalidated objects' IDs, a `Set<ManagedObjectID>` (only when there are some) — Core
        /// Data's `NSInvalidatedObjectIDsKey`.
        case invalidatedObjectIDs = "invalidated_objectIDs"
        /// The ``ContextChanges`` value describing the notification.
        case changes = "stowage_changes"
    }
}

extension Notification {
    /// The changes a context notification describes, if it is one.
    public var contextChanges: ContextChanges? {
        userInfo?[ManagedObjectContext.NotificationKey.changes.rawValue] as? ContextChanges
    }
}

/// Feeds one async-sequence subscriber of a context's changes.
struct ChangeObserver: Sendable {
    let kind: ContextChanges.Kind
    let continuation: AsyncStream<ContextChanges>.Continuation
}

extension ContextChanges {
    /// The changes as a did-save notification carrying object IDs only, the form
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)`` accepts from anywhere.
    ///
    /// For example:
    ///
    /// ```swift
    /// var changes = ContextChanges(kind: .didSave)
    /// changes.deletedObjectIDs = Set(deletedIDs)
    /// context.mergeChanges(fromContextDidSave: changes.didSaveObjectIDsNotification(object: nil))
    /// ```
    public func didSaveObjectIDsNotification(object: AnyObject?) -> Notification {
        typealias Key = ManagedObjectContext.NotificationKey
        let info: [AnyHashable: Any] = [
            Key.changes.rawValue: self, Key.insertedObjectIDs.rawValue: insertedObjectIDs,
            Key.updatedObjectIDs.rawValue: updatedObjectIDs, Key.deletedObjectIDs.rawValue: deletedObjectIDs,
        ]
        return Notification(name: .managedObjectContextDidSaveObjectIDs, object: object, userInfo: info)
    }
}
