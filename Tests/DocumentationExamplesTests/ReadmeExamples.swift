import Foundation
import Stowage
import XCTest

/// The delegate the README's observation example sets (`postList`): records inserted titles.
final class ReadmePostList: FetchedResultsControllerDelegate, @unchecked Sendable {
    // @unchecked: the controller calls it on its context's queue; the test reads it afterwards.
    private let lock = NSLock()
    private var insertedTitles: [String] = []

    func controller(_ controller: FetchedResultsController<Post>, didChange object: Post, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard type == .insert else { return }
        let title = object.title
        lock.withLock { insertedTitles.append(title) }
    }

    var inserted: [String] { lock.withLock { insertedTitles } }
}

/// Runs the README's observation example on its context's queue, as a model actor does, and
/// reports what a user would check once the live query's loop has ended.
actor ReadmeWatcher: ModelActor {
    nonisolated let modelExecutor: ManagedObjectContextExecutor

    init(context: ManagedObjectContext) {
        modelExecutor = ManagedObjectContextExecutor(context: context)
    }

    func watch(_ request: FetchRequest<Post>, listingIn postList: ReadmePostList) async throws -> (results: Int, pinned: Bool, undo: Bool) {
        let context = managedObjectContext

        // A table's rows, with exactly what changed (Core Data's NSFetchedResultsController):
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                      sectionNameKeyPath: nil, cacheName: nil)
        controller.delegate = postList
        try controller.performFetch()

        // Fresh results after every save that changes them — from any context or process:
        for try await latest in context.changes(for: request) { print(latest.count) }

        // Two fetches that read the same committed state, whatever is saved in between:
        try context.setQueryGenerationFrom(.current)

        // Undo, off by default as in Core Data:
        context.undoManager = UndoManager()

        return (controller.fetchedObjects?.count ?? -1, context.queryGenerationToken != nil, context.undoManager != nil)
    }
}

/// Every `swift` block of README.md that is not marked `<!-- unchecked -->`: the observation and
/// batch/history examples run; the two model-file examples need an application that ships
/// `Blog.xcdatamodeld` (and a compiled `Blog.momd`), so they are compiled, and run up to the
/// first line that needs the files.
final class ReadmeExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    func testWatchingDataConsistentReadsUndo() async throws {
        let container = try ExampleStack.seeded()
        let context = container.newBackgroundContext()
        var request = FetchRequest<Post>()
        request.sortDescriptors = [.ascending("title")]
        let postList = ReadmePostList()

        let watcher = ReadmeWatcher(context: context)
        let watching = Task { try await watcher.watch(request, listingIn: postList) }
        try await Task.sleep(nanoseconds: 300_000_000)      // the live query prints the current count
        let writer = container.newBackgroundContext()
        try await writer.perform {
            let post = try Post(context: writer)
            post.title = "Aurora"
            try writer.save()
        }
        try await Task.sleep(nanoseconds: 300_000_000)      // ... and the count after the save
        watching.cancel()                                   // which ends the example's for-await loop
        let outcome = try await watching.value

        XCTAssertGreaterThanOrEqual(outcome.results, 3, "the controller fetched the posts")
        XCTAssertTrue(outcome.pinned, "the context reads a pinned query generation")
        XCTAssertTrue(outcome.undo, "the context has an undo manager")
    }

    func testBatchRequestsAndPersistentHistory() throws {
        let storeURL = directory.appendingPathComponent("Blog.sqlite")
        var tracking = PersistentStoreDescription(url: directory.appendingPathComponent("Tracked.sqlite"))
        tracking.isHistoryTrackingEnabled = true
        let container = try ExampleStack.container(tracking)
        let lastToken: PersistentHistoryToken? = nil

        var description = PersistentStoreDescription(url: storeURL)
        description.isHistoryTrackingEnabled = true
        description.setOption(true, forKey: .remoteChangeNotificationPost)

        let context = container.newBackgroundContext()
        context.transactionAuthor = "importer"
        try context.execute(BatchInsertRequest(entityName: "Post", objects: [["title": "Hello"], ["title": "World"]]))
        try context.execute(BatchUpdateRequest(entityName: "Post", predicate: "title == 'Hello'",
                                               propertiesToUpdate: ["title": .constant(.string("Hi"))]))
        var delete = BatchDeleteRequest(fetchRequest: FetchRequest<Post>())
        delete.resultType = .objectIDs
        let gone = try context.execute(delete).objectIDs ?? []
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.deletedObjectIDs: gone], into: [container.viewContext])

        let history = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken))
        for transaction in history.transactions ?? [] {
            container.viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
        }

        XCTAssertTrue(description.isHistoryTrackingEnabled)
        XCTAssertEqual(description.options[.remoteChangeNotificationPost], .boolean(true))
        XCTAssertEqual(gone.count, 2)
        XCTAssertEqual(history.transactions?.count, 3, "the insert, the update and the delete")
        XCTAssertEqual(history.transactions?.map(\.author), ["importer", "importer", "importer"])
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Post>()), 0)
        ExampleStack.close(container)
    }

    /// README: "Models drawn in Xcode, stores written by Core Data".
    private func modelsDrawnInXcode() throws -> [Any?] {
        // Package.swift: .executableTarget(name: "App", resources: [.copy("Blog.xcdatamodeld")])
        let container = try PersistentContainer(name: "Blog")          // finds Blog.xcdatamodeld, current version

        let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Blog.xcdatamodeld"))
        let bundle = try ManagedObjectModelBundle(contentsOf: URL(fileURLWithPath: "Blog.xcdatamodeld"))
        let old = bundle.version(named: "Blog 2")?.model                // every version of the package
        let shipped = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Blog.app/Contents/Resources/Blog.momd"))   // compiled models too
        return [container, model, bundle, old, shipped]
    }

    /// README: "New model versions: lightweight migration".
    private func newModelVersions(storeURL: URL, v2: ManagedObjectModel, v3: ManagedObjectModel) throws -> [Any] {
        let container = try PersistentContainer(name: "Blog")   // Blog.xcdatamodeld with versions "Blog", "Blog 2", "Blog 3"
        try container.loadPersistentStores()                     // a store saved with "Blog 2" is migrated to "Blog 3" in place

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL)   // without opening it
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3)
        return [metadata, mapping]
    }

    func testModelFileExamplesNeedTheModelAmongTheResources() throws {
        // This test runner ships no Blog.xcdatamodeld, so both examples stop at their first line,
        // with the error a program that forgot to declare its model resource gets.
        XCTAssertThrowsError(try modelsDrawnInXcode()) { error in
            XCTAssertEqual((error as? ModelFileError)?.code, .notFound, "\(error)")
        }
        let model = try ExampleStack.model()
        XCTAssertThrowsError(try newModelVersions(storeURL: directory.appendingPathComponent("Blog.sqlite"), v2: model, v3: model)) { error in
            XCTAssertEqual((error as? ModelFileError)?.code, .notFound, "\(error)")
        }
    }
}
