import Foundation
import StoreCore
import XCTest

/// Mirrors a controller's sections by applying exactly what its delegate reports, the way a
/// table view applies batch updates, so the mirror can be compared with a fresh fetch.
final class MirroringDelegate: FetchedResultsControllerDelegate {
    typealias Result = Comment
    private(set) var mirror: [[ObjectIdentifier]] = []
    private(set) var mirrorNames: [String] = []
    private(set) var batches = 0
    private(set) var log: [String] = []
    private var previousIDs: [ManagedObjectID] = []
    /// The objects the mirror names, kept so their current IDs can be read after they left the context.
    private var known: [ObjectIdentifier: Comment] = [:]
    private var removedItems: [IndexPath] = []
    private var insertedItems: [(IndexPath, ObjectIdentifier)] = []
    private var removedSections: [Int] = []
    private var insertedSections: [(Int, String)] = []
    private(set) var differenceFailures: [String] = []

    func reset(from controller: FetchedResultsController<Comment>) {
        mirror = (controller.sections ?? []).map { $0.objects.map(ObjectIdentifier.init) }
        mirrorNames = (controller.sections ?? []).map(\.name)
        for object in controller.fetchedObjects ?? [] { known[ObjectIdentifier(object)] = object }
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<Comment>) {
        removedItems = []; insertedItems = []; removedSections = []; insertedSections = []
        previousIDs = mirror.flatMap { $0 }.compactMap { known[$0]?.objectID }
    }

    func controller(_ controller: FetchedResultsController<Comment>, didChange sectionInfo: FetchedResultsSectionInfo<Comment>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        log.append("section \(type) \(sectionIndex) \(sectionInfo.name)")
        switch type {
        case .delete: removedSections.append(sectionIndex)
        case .insert: insertedSections.append((sectionIndex, sectionInfo.name))
        default: break
        }
    }

    func controller(_ controller: FetchedResultsController<Comment>, didChange object: Comment, at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        log.append("\(type) \(object.text) \(indexPath.map { "\($0)" } ?? "-") \(newIndexPath.map { "\($0)" } ?? "-")")
        switch type {
        case .delete: if let indexPath { removedItems.append(indexPath) }
        case .insert:
            known[ObjectIdentifier(object)] = object
            if let newIndexPath { insertedItems.append((newIndexPath, ObjectIdentifier(object))) }
        case .move:
            if let indexPath { removedItems.append(indexPath) }
            if let newIndexPath { insertedItems.append((newIndexPath, ObjectIdentifier(object))) }
        case .update: break
        }
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Comment>) {
        batches += 1
        for path in removedItems.sorted(by: >) where mirror.indices.contains(path.sectionIndex) && mirror[path.sectionIndex].indices.contains(path.itemIndex) {
            mirror[path.sectionIndex].remove(at: path.itemIndex)
        }
        for section in removedSections.sorted(by: >) where mirror.indices.contains(section) {
            mirror.remove(at: section)
            mirrorNames.remove(at: section)
        }
        for (section, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) where section <= mirror.count {
            mirror.insert([], at: section)
            mirrorNames.insert(name, at: section)
        }
        for (path, object) in insertedItems.sorted(by: { $0.0 < $1.0 }) where mirror.indices.contains(path.sectionIndex) && path.itemIndex <= mirror[path.sectionIndex].count {
            mirror[path.sectionIndex].insert(object, at: path.itemIndex)
        }
    }

    func controller(_ controller: FetchedResultsController<Comment>, didChangeContentWith difference: CollectionDifference<ManagedObjectID>) {
        let current = (controller.fetchedObjects ?? []).map(\.objectID)
        if previousIDs.applying(difference) != current { differenceFailures.append("difference \(difference) does not turn \(previousIDs) into \(current)") }
    }
}

extension ObservationSuite {
    /// A controller over comments whose author starts with "a", in sections by their post's
    /// title (a to-one key path), follows a scripted series of changes; after each step its
    /// sections, and a mirror built only from what its delegate reported, equal a fresh fetch.
    func testControllerReportsExactlyWhatChanged() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make(), options: [.persistentHistoryTracking: true])
            let context = stack.newContext()
            try context.performAndWait {
                var request = FetchRequest<Comment>()
                request.predicate = try StorePredicate(format: "author BEGINSWITH 'a'")
                request.sortDescriptors = [.ascending("post.title"), .ascending("text")]
                func comment(_ author: String, _ text: String, _ post: Post) throws -> Comment {
                    let comment = try Comment(context: context)
                    comment.author = author
                    comment.text = text
                    comment.post = post
                    return comment
                }
                let alpha = try Post(context: context)
                alpha.title = "alpha"
                let beta = try Post(context: context)
                beta.title = "beta"
                let c1 = try comment("ann", "1", alpha), c2 = try comment("amy", "2", alpha)
                let c3 = try comment("bob", "3", alpha), c4 = try comment("al", "4", beta)
                try context.save()

                let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "post.title", cacheName: nil)
                let delegate = MirroringDelegate()
                controller.delegate = delegate
                try controller.performFetch()
                delegate.reset(from: controller)
                var step = "the first fetch"
                func check(_ expected: [String: [String]]) throws {
                    let fresh = try context.fetch(request)
                    let freshSections = Dictionary(grouping: fresh, by: { $0.post?.title ?? "" }).mapValues { $0.map(\.text) }
                    let sections = controller.sections ?? []
                    let shown = Dictionary(uniqueKeysWithValues: sections.map { ($0.name, $0.objects.map(\.text)) })
                    XCTAssertEqual(shown, freshSections, "\(backend), after \(step): the controller's sections differ from a fresh fetch")
                    XCTAssertEqual(shown, expected, "\(backend), after \(step)")
                    XCTAssertEqual(sections.map(\.name), sections.map(\.name).sorted(), "\(backend), after \(step): sections out of order")
                    XCTAssertEqual(controller.fetchedObjects?.map(ObjectIdentifier.init), fresh.map(ObjectIdentifier.init), "\(backend), after \(step): order")
                    XCTAssertEqual(delegate.mirror, sections.map { $0.objects.map(ObjectIdentifier.init) }, "\(backend), after \(step): the reported changes do not rebuild the sections; log: \(delegate.log)")
                    XCTAssertEqual(delegate.mirrorNames, sections.map(\.name), "\(backend), after \(step): section changes")
                    XCTAssertEqual(delegate.differenceFailures, [], "\(backend), after \(step)")
                }
                try check(["alpha": ["1", "2"], "beta": ["4"]])
                XCTAssertEqual(try controller.object(at: .section(0, item: 1)), c2, "\(backend)")
                XCTAssertEqual(controller.indexPath(forObject: c4), .section(1, item: 0), "\(backend)")
                XCTAssertEqual(controller.sectionIndexTitles, ["A", "B"], "\(backend)")

                step = "inserts into and outside the predicate"
                let c0 = try comment("abe", "0", beta)
                let c5 = try comment("zed", "5", beta)
                context.processPendingChanges()
                try check(["alpha": ["1", "2"], "beta": ["0", "4"]])

                step = "a further change to an inserted, unsaved object"
                c0.text = "9"
                context.processPendingChanges()
                try check(["alpha": ["1", "2"], "beta": ["4", "9"]])
                c0.text = "0"
                context.processPendingChanges()
                try check(["alpha": ["1", "2"], "beta": ["0", "4"]])

                step = "one object entering and one leaving the predicate"
                c3.author = "ali"
                c1.author = "zoe"
                context.processPendingChanges()
                try check(["alpha": ["2", "3"], "beta": ["0", "4"]])

                step = "a move across sections"
                c2.post = beta
                context.processPendingChanges()
                try check(["alpha": ["3"], "beta": ["0", "2", "4"]])

                step = "a sort key change"
                c4.text = "00"
                context.processPendingChanges()
                try check(["alpha": ["3"], "beta": ["0", "00", "2"]])

                step = "a save"
                try context.save()
                try check(["alpha": ["3"], "beta": ["0", "00", "2"]])

                step = "a delete by cascade (a section disappears)"
                context.delete(alpha)
                context.processPendingChanges()
                try check(["beta": ["0", "00", "2"]])
                try context.save()

                step = "a new section"
                let gamma = try Post(context: context)
                gamma.title = "gamma"
                _ = try comment("ava", "7", gamma)
                try context.save()
                try check(["beta": ["0", "00", "2"], "gamma": ["7"]])

                step = "a batch delete merged from history"
                let token = try context.persistentStoreCoordinator?.currentPersistentHistoryToken()
                let other = stack.newContext()
                try other.performAndWait {
                    var doomed = FetchRequest<Comment>()
                    doomed.predicate = try StorePredicate(format: "text == '00' OR text == '7'")
                    _ = try other.execute(BatchDeleteRequest(fetchRequest: doomed))
                }
                for transaction in try context.execute(.fetchHistory(after: token)).transactions ?? [] {
                    context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                }
                try check(["beta": ["0", "2"]])

                step = "another context's save, merged"
                let saved = try other.performAndWait {
                    let moved = try other.existingObject(with: c5.objectID) as? Comment
                    moved?.author = "ada"           // enters the predicate again, in beta
                    let post = try other.existingObject(with: beta.objectID) as? Post
                    moved?.post = post
                    let fresh = try Comment(context: other)
                    fresh.author = "aki"
                    fresh.text = "8"
                    fresh.post = post
                    try other.save()
                    var saved = ContextChanges(kind: .didSave)
                    saved.insertedObjectIDs = [fresh.objectID]
                    saved.updatedObjectIDs = [c5.objectID, beta.objectID]
                    return saved
                }
                context.mergeChanges(from: saved)
                try check(["beta": ["0", "2", "5", "8"]])
                XCTAssertGreaterThanOrEqual(delegate.batches, 8, "\(backend)")
            }
        }
    }
}
