import Foundation
import StoreCore
import XCTest

/// Records the errors a controller reports to its delegate.
final class FailureRecordingDelegate: FetchedResultsControllerDelegate {
    typealias Result = Comment
    private(set) var failures: [String] = []

    func controller(_ controller: FetchedResultsController<Comment>, didFailWith error: any Error) {
        failures.append("\(error)")
    }
}

extension ObservationSuite {
    /// A controller never hides what it could not do: a section key path it cannot evaluate
    /// fails `performFetch()`, and a refetch that fails (a request with a fetch limit is
    /// refetched after each change) is reported in `lastError` and to the delegate, the
    /// results staying as they were.
    func testControllerReportsWhatItCannotFollow() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let context = stack.newContext()
            try context.performAndWait {
                let post = try Post(context: context)
                post.title = "alpha"
                for text in ["1", "2", "3"] {
                    let comment = try Comment(context: context)
                    comment.text = text
                    comment.post = post
                }
                try context.save()

                var request = FetchRequest<Comment>()
                request.sortDescriptors = [.ascending("text")]
                let unknownSection = try FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "post.noSuchKey")
                XCTAssertThrowsError(try unknownSection.performFetch(), "\(backend): a section key path naming no property fails the fetch")

                request.fetchLimit = 2
                let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: context)
                let delegate = FailureRecordingDelegate()
                controller.delegate = delegate
                try controller.performFetch()
                XCTAssertEqual(controller.fetchedObjects?.map(\.text), ["1", "2"], "\(backend)")
                XCTAssertNil(controller.lastError, "\(backend)")

                // Without a store, the refetch after the next change fails.
                let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
                for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
                let early = try Comment(context: context)
                early.text = "0"
                context.processPendingChanges()
                XCTAssertNotNil(controller.lastError, "\(backend): the failed refetch is kept")
                XCTAssertEqual(delegate.failures.count, 1, "\(backend): and reported to the delegate")
                XCTAssertEqual(controller.fetchedObjects?.map(\.text), ["1", "2"], "\(backend): the results stay as they were")
            }
        }
    }
}
