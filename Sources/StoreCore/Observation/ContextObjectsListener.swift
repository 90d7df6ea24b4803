import Foundation

/// What one objects-did-change event of a context changed, handed synchronously (on the
/// context's queue) to the context's listeners — the fetched results controllers over it.
struct ObjectChangeBatch {
    var inserted: [ManagedObject] = []
    var updated: [ManagedObject] = []
    var deleted: [ManagedObject] = []
    var refreshed: [ManagedObject] = []
    var invalidated: [ManagedObject] = []
    /// Objects another context saved that this context did not hold: inserted, or updated
    /// while not registered here (either may now match a listener's request).
    var mergedIDs: [ManagedObjectID] = []

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && mergedIDs.isEmpty
    }
}

/// Something that follows a context's object changes as they are processed, on its queue.
protocol ContextObjectsListener: AnyObject {
    func contextObjectsDidChange(_ batch: ObjectChangeBatch)
}

/// A weak reference to a listener, so a controller the user let go stops listening.
struct WeakObjectsListener {
    weak var listener: (any ContextObjectsListener)?
}

extension ManagedObjectContext {
    func addObjectsListener(_ listener: any ContextObjectsListener) {
        objectsListeners.removeAll { $0.listener == nil || $0.listener === listener }
        objectsListeners.append(WeakObjectsListener(listener: listener))
    }

    func removeObjectsListener(_ listener: any ContextObjectsListener) {
        objectsListeners.removeAll { $0.listener == nil || $0.listener === listener }
    }

    func notifyObjectsListeners(_ batch: ObjectChangeBatch) {
        guard !objectsListeners.isEmpty, !batch.isEmpty else { return }
        for entry in objectsListeners { entry.listener?.contextObjectsDidChange(batch) }
    }
}
