import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// An actor on a context's queue: isolated code uses the context directly, and only
/// `Sendable` values leave it.
final class ModelActorTests: XCTestCase {
    actor Importer: ModelActor {
        nonisolated let modelExecutor: ManagedObjectContextExecutor
        init(context: ManagedObjectContext) {
            modelExecutor = ManagedObjectContextExecutor(context: context)
        }

        func importPosts(_ titles: [String]) throws -> [ManagedObjectID] {
            let posts = try titles.map { title in
                let post = try Post(context: managedObjectContext)
                post.title = title
                return post
            }
            try managedObjectContext.save()
            return posts.map(\.objectID)
        }

        func count() throws -> Int { try managedObjectContext.count(for: FetchRequest<Post>()) }
    }

    func testAnActorRunsOnItsContextQueue() async throws {
        let container = try TestStack.container(BlogModel.make())
        let importer = Importer(context: container.newBackgroundContext())
        let ids = try await importer.importPosts(["a", "b", "c"])
        XCTAssertEqual(ids.count, 3)
        XCTAssertFalse(ids.contains(where: \.isTemporaryID), "saved: permanent IDs")
        let reader = container.newBackgroundContext()
        let titles = try await reader.perform { try reader.fetch(FetchRequest<Post>()).map(\.title).sorted() }
        XCTAssertEqual(titles, ["a", "b", "c"])

        // While a block of the context holds its queue, the actor's next call waits for it.
        let context = importer.modelExecutor.context
        let release = DispatchSemaphore(value: 0)
        hold(context, until: release)
        let finished = LockedFlag()
        let call = Task {
            let count = try await importer.count()
            finished.set()
            return count
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        XCTAssertFalse(finished.isSet, "the actor's call waits for the context's queue")
        release.signal()
        let count = try await call.value
        XCTAssertEqual(count, 3)
    }

    /// Occupies the context's queue until `release` is signalled.
    private func hold(_ context: ManagedObjectContext, until release: DispatchSemaphore) {
        context.perform { release.wait() }
    }

    final class LockedFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    func testEnqueuedBlocksRunInOrder() async throws {
        let container = try TestStack.container(BlogModel.make())
        let context = container.newBackgroundContext()
        async let first: Int = context.perform(schedule: .enqueued) { 1 }
        async let second: Int = context.perform(schedule: .enqueued) { 2 }
        let results = try await [first, second]
        XCTAssertEqual(results, [1, 2])
    }
}
