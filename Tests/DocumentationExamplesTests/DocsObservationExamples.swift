import Foundation
import Stowage
import XCTest

// docs/observation.md, "The delegate": every method a controller's delegate can implement.
final class CommentSections: FetchedResultsControllerDelegate {
    var log: [String] = []

    func controllerWillChangeContent(_ controller: FetchedResultsController<Comment>) {
        log.append("will change")
    }
    // A section appeared (insert, at its new index) or disappeared (delete, at its old index).
    func controller(_ controller: FetchedResultsController<Comment>, didChange sectionInfo: FetchedResultsSectionInfo<Comment>,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        log.append("section \(type) \(sectionIndex) \(sectionInfo.name)")
    }
    // An object entered (newIndexPath), left (indexPath), moved (both) or changed in place (both, equal).
    func controller(_ controller: FetchedResultsController<Comment>, didChange object: Comment, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        log.append("object \(type) \(object.text)")
    }
    func controllerDidChangeContent(_ controller: FetchedResultsController<Comment>) {
        log.append("did change")
    }
    // The same batch over the whole result list: removals at old offsets, insertions at new ones.
    func controller(_ controller: FetchedResultsController<Comment>, didChangeContentWith difference: CollectionDifference<ManagedObjectID>) {
        log.append("difference: \(difference.insertions.count) inserted, \(difference.removals.count) removed")
    }
    // nil keeps the default title: the section name's first letter, uppercased.
    func controller(_ controller: FetchedResultsController<Comment>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        sectionName.isEmpty ? "#" : nil
    }
}

/// docs/observation.md: change streams, a sectioned controller and its delegate, live queries,
/// query generations and undo, on the seeded Blog store.
final class DocsObservationExamples: XCTestCase {
    func testMergingAnotherContextsSaves() async throws {
        let container = try ExampleStack.seeded()
        let background = container.newBackgroundContext()
        let viewContext = container.newBackgroundContext()
        let title = FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'")
        let id = try await viewContext.perform { try viewContext.fetch(title)[0].objectID }   // viewContext holds the post

        let follower = Task {
            for await saved in background.changes(of: .didSave) {
                try await viewContext.perform { viewContext.mergeChanges(from: saved) }
            }
        }
        // The follower subscribes when its task starts: save until one save reaches viewContext,
        // whose post then shows the new title (without the merge it keeps the one it read).
        // A generous bound, so that a missing merge fails rather than hangs.
        var seen = ""
        for attempt in 1...2000 where seen != "Evening \(attempt - 1)" {
            try await background.perform {
                try background.existingObject(with: id).setValue("Evening \(attempt)", forKey: "title")
                try background.save()
            }
            seen = try await viewContext.perform { try viewContext.existingObject(with: id).value(forKey: "title") as? String ?? "" }
            if !seen.hasPrefix("Evening") { try await Task.sleep(nanoseconds: 5_000_000) }
        }
        follower.cancel()
        XCTAssertTrue(seen.hasPrefix("Evening"), "a save reached the other context through the merge")
    }

    func testASectionedControllerAndItsDelegate() throws {
        let container = try ExampleStack.seeded()
        let viewContext = container.viewContext
        let list = CommentSections()
        _ = printed.take()

        var request = FetchRequest<Comment>()
        request.predicate = try StorePredicate(format: "post != nil")
        request.sortDescriptors = [.ascending("post.title"), .ascending("text")]   // section key first
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: viewContext,
                                                      sectionNameKeyPath: "post.title", cacheName: nil)
        controller.delegate = list        // a FetchedResultsControllerDelegate with Result == Comment
        try controller.performFetch()

        print(controller.sections?.map(\.name) ?? [])           // ["Harbour Lights", "Misty Morning"]
        let lovely = try controller.object(at: IndexPath(item: 0, section: 1))
        print(lovely.text, controller.indexPath(forObject: lovely) == IndexPath(item: 0, section: 1))   // Lovely light true
        print(controller.sectionIndexTitles)                    // ["H", "M"]

        XCTAssertEqual(printed.take(), [#"["Harbour Lights", "Misty Morning"]"#, "Lovely light true", #"["H", "M"]"#])

        let northern = try viewContext.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Northern Sky'"))[0]
        let clear = try Comment(context: viewContext)
        clear.text = "Clear night"
        northern.comments.insert(clear)
        viewContext.processPendingChanges()            // a save, a fetch or the end of a perform block does it too
        print(list.log)   // ["will change", "section insert 2 Northern Sky", "object insert Clear night", "did change", "difference: 1 inserted, 0 removed"]
        for section in controller.sections ?? [] {     // FetchedResultsSectionInfo: name, indexTitle, objects, numberOfObjects
            print(section.name, section.indexTitle ?? "", section.numberOfObjects, section.objects.map(\.text))
        }
        // Harbour Lights H 1 ["Wow"]
        // Misty Morning M 2 ["Lovely light", "Where is this?"]
        // Northern Sky N 1 ["Clear night"]

        XCTAssertEqual(printed.take(), [
            #"["will change", "section insert 2 Northern Sky", "object insert Clear night", "did change", "difference: 1 inserted, 0 removed"]"#,
            #"Harbour Lights H 1 ["Wow"]"#, #"Misty Morning M 2 ["Lovely light", "Where is this?"]"#, #"Northern Sky N 1 ["Clear night"]"#,
        ])
    }

    func testLiveQueries() async throws {
        let container = try ExampleStack.seeded()
        let context = container.newBackgroundContext()
        _ = printed.take()

        var recent = FetchRequest<Post>()
        recent.sortDescriptors = [.descending("timestamp")]
        recent.fetchLimit = 20
        for try await posts in context.changes(for: recent) {
            print(posts.map(\.title))      // ["Misty Morning", "Harbour Lights", "Northern Sky"]: the current results first
            break                          // a view keeps following them until its task ends
        }
        let uncommented = FetchRequest<Post>(entityName: "Post", predicate: "comments.@count == 0")
        for try await count in context.changes(forCountOf: uncommented) {
            print(count)                   // 1
            break
        }
        var titles = FetchRequest<FetchedDictionary>(entityName: "Post")
        titles.propertiesToFetch = ["title"]
        for try await rows in context.changes(for: titles) {   // dictionary results too
            print(rows.count)              // 3
            break
        }

        XCTAssertEqual(printed.take(), [#"["Misty Morning", "Harbour Lights", "Northern Sky"]"#, "1", "3"])
    }

    func testQueryGenerations() throws {
        let container = try ExampleStack.seeded()
        let context = container.newBackgroundContext()
        let writer = container.newBackgroundContext()
        let sharer = container.newBackgroundContext()
        try context.performAndWait {
            try context.setQueryGenerationFrom(.current)                     // pin the latest committed state
            let posts = try context.fetch(FetchRequest<Post>())              // both read the same state,
            let comments = try context.count(for: FetchRequest<Comment>())   // whatever is saved meanwhile
            let token = context.queryGenerationToken                         // hand it to another context to share the state
            try context.setQueryGenerationFrom(.unpinned)                    // or nil: read the latest again

            XCTAssertEqual(posts.count, 3)
            XCTAssertEqual(comments, 3)
            try writer.performAndWait {
                _ = try Post(context: writer)
                try writer.save()
            }
            try sharer.performAndWait {
                try sharer.setQueryGenerationFrom(token)
                XCTAssertEqual(try sharer.count(for: FetchRequest<Post>()), 3, "the shared token reads the pinned state")
            }
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 4, "unpinned: the latest state")
        }
    }

    func testUndo() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext
        let post = try context.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'"))[0]

        context.undoManager = UndoManager()
        context.delete(post)                 // its comments cascade, its author's posts lose it
        context.processPendingChanges()      // the end of an event: one undo group (a perform block ends one too)
        context.undoManager?.undo()          // post, comments and every relationship are back
        context.undoManager?.redo()

        XCTAssertTrue(post.isDeleted, "redone: deleted again")
        context.undoManager?.undo()
        XCTAssertFalse(post.isDeleted)
        XCTAssertEqual(post.comments.count, 2)
    }
}
