import Foundation
import Synchronization

extension PersistentStoreOption {
    /// Post `Notification.Name.persistentStoreRemoteChange` whenever anyone — another
    /// process, another coordinator, or this one — commits to the store's file
    /// (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    public static let remoteChangeNotificationPost = Self(rawValue: "NSPersistentStoreRemoteChangeNotificationOptionKey")
}

extension Notification.Name {
    /// Posted by a coordinator (the notification's object) when a store loaded with
    /// ``PersistentStoreOption/remoteChangeNotificationPost`` was committed to. `userInfo` holds
    /// the store's identifier under `"storeUUID"`, its URL under `"storeURL"`, and — when a SQLite
    /// store records history — the newest ``PersistentHistoryToken`` under `"historyToken"` (atomic
    /// stores see another writer's history only once loaded again, so they post none).
    public static let persistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// A store that can tell when its file was committed to, by anyone: it hands out a probe whose
/// stamp changes with every commit (SQLite's `PRAGMA data_version` on a connection of its own; an
/// atomic store's file identity).
///
/// For example:
///
/// ```swift
/// let probe = try store.makeChangeProbe()
/// let before = try probe()
/// // … another process saves …
/// try probe() != before    // true
/// ```
public protocol ChangeObservableStore: PersistentStore {
    /// A probe returning a stamp that changes whenever anyone commits to the store; the coordinator
    /// polls it for `Notification.Name.persistentStoreRemoteChange`.
    /// - Throws: `StoreError` with `invalidOption` for a store with no file for others to change (held
    ///   in memory), or the store's error when the probe's connection cannot be opened.
    func makeChangeProbe() throws -> @Sendable () throws -> String
}

/// Polls one store's change probe every 50 ms on a queue of its own and posts
/// `Notification.Name.persistentStoreRemoteChange` when the stamp moves.
///
/// Polling a stamp costs microseconds; it works for commits made through any connection or
/// process, which inotify on a WAL file does not tell apart reliably.
final class RemoteChangeWatcher: @unchecked Sendable {
    // @unchecked: the timer is set once in `init`; DispatchSource's resume and cancel are thread-safe.
    private let timer: any DispatchSourceTimer
    static let interval: DispatchTimeInterval = .milliseconds(50)

    init(store: any ChangeObservableStore, coordinator: PersistentStoreCoordinator) throws {
        let probe = try store.makeChangeProbe()
        let last = Mutex(try probe())
        let queue = DispatchQueue(label: "Stowage.RemoteChangeWatcher.\(store.identifier)")
        timer = DispatchSource.makeTimerSource(queue: queue)
        let identifier = store.identifier
        let url = store.url
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(10))
        timer.setEventHandler { [weak coordinator, weak store] in
            guard let coordinator, let store, let stamp = try? probe() else { return }
            let moved = last.withLock { previous in
                defer { previous = stamp }
                return previous != stamp
            }
            guard moved else { return }
            coordinator.noteWrite()
            // An atomic store reads the file another writer replaced, so fetches see its save.
            (store as? AtomicStore)?.reloadIfReplaced()
            var info: [AnyHashable: Any] = ["storeUUID": identifier]
            if let url { info["storeURL"] = url }
            // An atomic store's history is that of the file it read; another writer's transactions
            // are only seen once the store is loaded again, so it posts no token.
            if !(store is AtomicStore), let history = store as? any PersistentHistoryStore, history.isHistoryTrackingEnabled,
                let token = try? history.currentHistoryToken() {
                info["historyToken"] = token
            }
            NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: coordinator, userInfo: info)
            coordinator.didCommit(StoreCommit(entityNames: nil))
        }
        timer.resume()
    }

    func cancel() { timer.cancel() }

    deinit { timer.cancel() }
}

extension Notification {
    /// The history token of a `Notification.Name.persistentStoreRemoteChange` notification, if the store records history.
    public var historyToken: PersistentHistoryToken? { userInfo?["historyToken"] as? PersistentHistoryToken }
}
