import Foundation
import StoreCore
import Synchronization

extension SyncEngine {
    /// Starts syncing in the background, as `NSPersistentCloudKitContainer` does: after every
    /// save to the local store, whenever the server store posts a remote change notification
    /// (turn on `.remoteChangeNotificationPost` in its description; PostgreSQL delivers other
    /// machines' commits through `LISTEN`/`NOTIFY`), and once at start. A failed sync is retried
    /// after ``Options/retryDelay``, doubling up to ``Options/maximumRetryDelay``. Watch
    /// ``events()`` for what happens.
    ///
    /// For example:
    ///
    /// ```swift
    /// engine.startLiveSync()
    /// // … the app saves as usual; other clients' changes arrive as ordinary merges …
    /// engine.stopLiveSync()
    /// ```
    public func startLiveSync() {
        let started = live.withLock { state -> Bool in
            guard state == nil else { return false }
            state = LiveSync()
            return true
        }
        guard started else { return }
        let center = NotificationCenter.default
        let saves = center.addObserver(forName: .managedObjectContextDidSave, object: nil, queue: nil) { [weak self] notification in
            guard let self, let context = notification.object as? ManagedObjectContext, context.persistentStoreCoordinator === self.local else { return }
            self.scheduleLiveSync()
        }
        let remote = center.addObserver(forName: .persistentStoreRemoteChange, object: nil, queue: nil) { [weak self] notification in
            guard let self, let coordinator = notification.object as? PersistentStoreCoordinator,
                  coordinator === self.server || coordinator === self.local else { return }
            self.scheduleLiveSync()
        }
        live.withLock { $0?.observers = [ObserverToken(saves), ObserverToken(remote)] }
        scheduleLiveSync()
    }

    /// Stops background syncing; a sync already running completes.
    ///
    /// For example:
    ///
    /// ```swift
    /// engine.stopLiveSync()
    /// try await engine.sync()          // on demand still works
    /// ```
    public func stopLiveSync() {
        let observers = live.withLock { state -> [ObserverToken] in
            defer { state = nil }
            return state?.observers ?? []
        }
        for observer in observers { NotificationCenter.default.removeObserver(observer.token) }
    }

    /// Whether live sync is on.
    ///
    /// For example:
    ///
    /// ```swift
    /// if !engine.isLiveSyncing { engine.startLiveSync() }
    /// ```
    public var isLiveSyncing: Bool { live.withLock { $0 != nil } }

    /// Queues one sync, unless one is queued already; one that is running is followed by another.
    func scheduleLiveSync(after delay: Duration = .zero) {
        let queueIt = live.withLock { state -> Bool in
            guard var current = state else { return false }
            defer { state = current }
            if current.isRunning { current.runAgain = true; return false }
            if current.isScheduled { return false }
            current.isScheduled = true
            return true
        }
        guard queueIt else { return }
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in self?.runLiveSync() }
    }

    private func runLiveSync() {
        guard live.withLock({ state -> Bool in
            guard state != nil else { return false }
            state?.isScheduled = false
            state?.isRunning = true
            return true
        }) else { return }
        var retry: Duration?
        do {
            _ = try syncNow(resynchronizing: false)
            live.withLock { $0?.failures = 0 }
        } catch {
            retry = live.withLock { state -> Duration in
                state?.failures += 1
                let failures = state?.failures ?? 1
                var delay = options.retryDelay
                for _ in 1..<min(failures, 30) where delay < options.maximumRetryDelay { delay *= 2 }
                return min(delay, options.maximumRetryDelay)
            }
        }
        let again = live.withLock { state -> Bool in
            defer { state?.isRunning = false; state?.runAgain = false }
            return state?.runAgain ?? false
        }
        if let retry {
            scheduleLiveSync(after: retry)
        } else if again {
            scheduleLiveSync()
        }
    }
}

/// The state of live sync.
struct LiveSync: Sendable {
    var observers: [ObserverToken] = []
    var isScheduled = false
    var isRunning = false
    var runAgain = false
    var failures = 0
}

/// A notification observer, kept only to be removed.
struct ObserverToken: @unchecked Sendable {
    // @unchecked: the token is never used except to be handed back to NotificationCenter, which is thread-safe.
    let token: any NSObjectProtocol
    init(_ token: any NSObjectProtocol) { self.token = token }
}
