import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// Asynchronous fetches: results through the completion block with progress counted to the
/// end, and a cancel that stops between batches with a typed error.
final class AsynchronousFetchTests: XCTestCase {
    private func context(posts: Int) throws -> ManagedObjectContext {
        let container = try TestStack.container(BlogModel.make())
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for n in 0..<posts {
                let post = try Post(context: context)
                post.title = "post \(n)"
            }
            try context.save()
        }
        return context
    }

    func testResultsArriveWithProgress() throws {
        let context = try context(posts: 25)
        var fetch = FetchRequest<Post>()
        fetch.sortDescriptors = [.ascending("title")]
        let finished = expectation(description: "completion")
        let titles = LockedBox<[String]>([])
        var request = AsynchronousFetchRequest(fetchRequest: fetch) { result in
            titles.value = result.finalResult?.map(\.title) ?? []
            finished.fulfill()
        }
        request.batchSize = 10
        let running = context.execute(request)
        wait(for: [finished], timeout: 20)
        XCTAssertEqual(titles.value.count, 25)
        XCTAssertEqual(titles.value.first, "post 0")
        XCTAssertEqual(running.progress.completedUnitCount, 25)
        XCTAssertEqual(running.progress.fractionCompleted, 1)
        XCTAssertNil(running.operationError)
    }

    func testCancellingStopsTheFetch() throws {
        let context = try context(posts: 30)
        let hold = DispatchSemaphore(value: 0)
        context.perform { hold.wait() }     // the fetch waits behind this block
        let finished = expectation(description: "completion")
        let running = context.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest<Post>()) { _ in finished.fulfill() })
        running.cancel()
        hold.signal()
        wait(for: [finished], timeout: 20)
        XCTAssertNil(running.finalResult)
        XCTAssertEqual((running.operationError as? FetchError)?.code, .cancelled)
    }
}
