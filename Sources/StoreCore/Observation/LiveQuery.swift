import Foundation
import Synchronization

/// One running live query: refetches its request on its context's queue after each commit that
/// may touch its entities, and yields the results when they differ from the last ones yielded.
///
/// Commits arriving while a refetch is waiting are coalesced into it; refetches run one at a
/// time on the context's queue, so a result is never older than one already yielded.
final class LiveQuery<Element>: @unchecked Sendable {
    // @unchecked: `context` and `fetch` are used only on the context's queue; `state` is a Mutex.
    private let context: ManagedObjectContext
    private let fetch: () throws -> (Element, [StoreValue])
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    private let entities: Set<String>
    private struct State {
        var isScheduled = false
        var isFinished = false
        var lastFingerprint: [StoreValue]?
        var subscription: UUID?
        var coordinator: PersistentStoreCoordinator?
    }
    private let state = Mutex(State())

    init(
        context: ManagedObjectContext, entities: Set<String>, continuation: AsyncThrowingStream<Element, any Error>.Continuation,
        fetch: @escaping () throws -> (Element, [StoreValue])
    ) {
        self.context = context
        self.entities = entities
        self.continuation = continuation
        self.fetch = fetch
    }

    /// Starts listening and schedules the first delivery.
    func start() {
        guard let coordinator = context.persistentStoreCoordinator else {
            continuation.finish(throwing: StoreError(.noStores, "\(context) has no persistent store coordinator"))
            return
        }
        let subscription = coordinator.addCommitObserver { [weak self] commit in
            guard let self, commit.mayTouch(self.entities) else { return }
            self.schedule()
        }
        state.withLock {
            $0.subscription = subscription
            $0.coordinator = coordinator
        }
        // The stream owns the query until iteration ends (the handler is released once called).
        continuation.onTermination = { _ in self.stop() }
        schedule()
    }

    func stop() {
        let (coordinator, subscription) = state.withLock { state in
            state.isFinished = true
            defer { state.subscription = nil; state.coordinator = nil }
            return (state.coordinator, state.subscription)
        }
        if let coordinator, let subscription { coordinator.removeCommitObserver(subscription) }
    }

    private func schedule() {
        let wanted = state.withLock { state in
            guard !state.isScheduled, !state.isFinished else { return false }
            state.isScheduled = true
            return true
        }
        guard wanted else { return }
        context.perform { [self] in refresh() }
    }

    private func refresh() {
        guard state.withLock({ state in
            state.isScheduled = false
            return !state.isFinished
        }) else { return }
        do {
            let (element, fingerprint) = try fetch()
            let changed = state.withLock { state in
                defer { state.lastFingerprint = fingerprint }
                return state.lastFingerprint != fingerprint
            }
            if changed { continuation.yield(element) }
        } catch {
            continuation.finish(throwing: error)
            stop()
        }
    }
}
