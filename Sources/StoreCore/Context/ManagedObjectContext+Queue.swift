import Foundation

extension ManagedObjectContext {
    /// Runs `block` on the context's queue and returns at once. Like Core Data, the context
    /// processes its pending changes when the block ends (``processPendingChanges()``), so
    /// fetched results controllers and objects-did-change observers see the block's changes.
    ///
    /// For example:
    ///
    /// ```swift
    /// context.perform { try? context.save() }
    /// ```
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            block()
            endEvent()
        }
    }

    /// Runs `block` on the context's queue and waits for its result. Safe to call from the
    /// queue itself (the block then runs at once).
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try context.performAndWait { try context.count(for: FetchRequest<Post>()) }
    /// ```
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue { return try block() }
        return try queue.sync(execute: block)
    }

    /// Runs `block` on the context's queue and returns its result to the awaiting task; the
    /// context processes its pending changes when the block ends. With `.immediate` (the
    /// default, as in Core Data) a caller already on the queue — a ``ModelActor``'s method — runs
    /// the block at once; `.enqueued` always queues it behind work already waiting.
    ///
    /// For example:
    ///
    /// ```swift
    /// let titles = try await context.perform {
    ///     try context.fetch(FetchRequest<Post>()).map(\.title)
    /// }
    /// ```
    public func perform<T: Sendable>(
        schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws -> T
    ) async throws -> T {
        if schedule == .immediate, isOnQueue {
            let result = Result { try block() }
            endEvent()
            return try result.get()
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                let result = Result { try block() }
                endEvent()
                continuation.resume(with: result)
            }
        }
    }

    /// The end of an event (a `perform` block): pending changes are processed, which closes the
    /// undo group and tells observers.
    func endEvent() {
        if hasPendingEvent { processPendingChanges() }
    }

    /// When an async ``perform(schedule:_:)`` runs its block: Core Data's `ScheduledTaskType`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try await context.perform(schedule: .enqueued) { try context.count(for: request) }
    /// ```
    public enum ScheduledTaskType: Sendable {
        /// At once when the caller is already on the context's queue; otherwise enqueued.
        case immediate
        /// Always after the work already enqueued.
        case enqueued
    }

    /// Whether the current code runs on the context's queue.
    var isOnQueue: Bool {
        switch concurrencyType {
        case .mainQueue: Thread.isMainThread
        case .privateQueue: DispatchQueue.getSpecific(key: Self.queueKey) == queueToken
        }
    }

    /// Traps, in concurrency debug mode, when the context or one of its objects is used off its queue.
    func checkQueue(accessing object: ManagedObject?) {
        guard ConcurrencyDebug.isEnabled, !isOnQueue else { return }
        let what = object.map { "\($0.entity.name) object \($0.objectID)" } ?? "the context itself"
        let queueName = concurrencyType == .mainQueue ? "the main queue" : "its private queue '\(queue.label)' (use perform or performAndWait)"
        let current = Thread.isMainThread ? "the main thread" : "a thread outside the context's queue (\(Thread.current))"
        ConcurrencyDebug.trap("Stowage concurrency violation: \(what) of \(self) was accessed from \(current); it belongs to \(queueName).")
    }
}

/// The concurrency debug switch: `STOWAGE_CONCURRENCY_DEBUG=1` in the environment turns every
/// access to a context or its objects from the wrong queue into an immediate trap — the
/// counterpart of Core Data's `-com.apple.CoreData.ConcurrencyDebug 1`.
///
/// For example:
///
/// ```sh
/// STOWAGE_CONCURRENCY_DEBUG=1 swift run my-tool
/// ```
public enum ConcurrencyDebug {
    /// Whether the debug switch is on for this process.
    public static let isEnabled: Bool = {
        let value = ProcessInfo.processInfo.environment["STOWAGE_CONCURRENCY_DEBUG"] ?? ""
        return value == "1" || value.lowercased() == "yes" || value.lowercased() == "true"
    }()

    static func trap(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        abort()
    }
}
