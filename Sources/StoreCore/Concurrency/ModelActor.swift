import Foundation

/// Runs an actor's code on a context's queue: the executor of a ``ModelActor``.
///
/// Jobs are enqueued on the context's queue in order, so the actor's isolated code may use the
/// context and its objects directly — no `perform` — and the context's queue checks
/// (`STOWAGE_CONCURRENCY_DEBUG=1`) hold.
///
/// For example:
///
/// ```swift
/// nonisolated let modelExecutor = ManagedObjectContextExecutor(context: container.newBackgroundContext())
/// ```
public final class ManagedObjectContextExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `context` is only used on its own queue, where every job runs.
    /// The context whose queue runs the actor's jobs.
    public let context: ManagedObjectContext

    /// An executor that runs every job on `context`'s queue.
    public init(context: ManagedObjectContext) {
        self.context = context
    }

    /// Schedules a job of the actor on the context's queue, after the jobs already there.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        context.queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor as an ordinary unowned serial executor, for the actor's `unownedExecutor`.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether `other` runs its jobs on the same context queue as this one (an executor of the same context).
    public func isSameExclusiveExecutionContext(other: ManagedObjectContextExecutor) -> Bool {
        context.queue === other.context.queue
    }
}

/// An actor that owns a context and runs on its queue — SwiftData's `ModelActor` — so server
/// code can `await` model work without bridging queues. Conform an actor and give it a
/// ``ManagedObjectContextExecutor``; its isolated methods use ``managedObjectContext`` directly.
///
/// For example:
///
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelExecutor: ManagedObjectContextExecutor
///     init(container: PersistentContainer) {
///         modelExecutor = ManagedObjectContextExecutor(context: container.newBackgroundContext())
///     }
///     func importPosts(_ titles: [String]) throws -> Int {
///         for title in titles { try Post(context: managedObjectContext).title = title }
///         try managedObjectContext.save()
///         return titles.count
///     }
/// }
/// let imported = try await Importer(container: container).importPosts(["a", "b"])
/// ```
///
/// Values returned from the actor must be `Sendable`: object IDs, counts, decoded structs
/// (``ManagedObjectContext/fetch(_:as:)``) — not managed objects, which belong to its context.
public protocol ModelActor: Actor {
    /// The executor running the actor on its context's queue.
    nonisolated var modelExecutor: ManagedObjectContextExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its context's queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        modelExecutor.asUnownedSerialExecutor()
    }

    /// The context the actor owns.
    public var managedObjectContext: ManagedObjectContext { modelExecutor.context }
}
