import Foundation
import Stowage
import XCTest

actor PostImporter: ModelActor {
    nonisolated let modelExecutor: ManagedObjectContextExecutor

    init(container: PersistentContainer) {
        modelExecutor = ManagedObjectContextExecutor(context: container.newBackgroundContext())
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
}

/// SavingMergingAndConcurrency.md: saving and rolling back, the queue methods, async code, model
/// actors, child contexts, automatic merging, optimistic locking and constraint conflicts.
final class SavingMergingAndConcurrencyExamples: XCTestCase {
    func testSavingAndTheQueueMethods() throws {
        let container = try ExampleStack.container()

        let context = container.viewContext
        let post = try Post(context: context)
        post.title = "Misty Morning"
        if context.hasChanges {
            try context.save()
        }
        post.title = "Changed my mind"
        context.rollback()
        print(post.title)                 // Misty Morning

        XCTAssertEqual(post.title, "Misty Morning")
        XCTAssertFalse(context.hasChanges)

        let background = container.newBackgroundContext()
        let count = try background.performAndWait {
            try background.count(for: FetchRequest<Post>())
        }
        background.perform {
            // runs later, on the context's queue; this form cannot throw
        }
        print(count)                      // 1

        XCTAssertEqual(count, 1)
        // A block queued with `perform` runs before a later `performAndWait`.
        let ran = background.performAndWait { true }
        XCTAssertTrue(ran)
    }

    func testAsyncCode() async throws {
        let container = try ExampleStack.container()
        let setup = container.newBackgroundContext()
        try await setup.perform {
            let post = try Post(context: setup)
            post.title = "Misty Morning"
            try setup.save()
        }

        let reader = container.newBackgroundContext()
        let titles = try await reader.perform {
            try reader.fetch(FetchRequest<Post>()).map(\.title)
        }
        let savedID = try await container.performBackgroundTask { context in
            let post = try Post(context: context)
            post.title = "Written in the background"
            try context.save()
            return post.objectID
        }
        print(titles, savedID.isTemporaryID)          // ["Misty Morning"] false

        XCTAssertEqual(titles, ["Misty Morning"])
        XCTAssertFalse(savedID.isTemporaryID)
        let count = try await reader.perform { try reader.count(for: FetchRequest<Post>()) }
        XCTAssertEqual(count, 2)
    }

    func testModelActor() async throws {
        let container = try ExampleStack.container()

        let importer = PostImporter(container: container)
        let imported = try await importer.importPosts(["Harbour Lights", "Northern Sky"])
        print(imported.count)                         // 2

        XCTAssertEqual(imported.count, 2)
        XCTAssertFalse(imported.contains(where: \.isTemporaryID))
        let reader = container.newBackgroundContext()
        let titles = try await reader.perform { try reader.fetch(FetchRequest<Post>()).map(\.title).sorted() }
        XCTAssertEqual(titles, ["Harbour Lights", "Northern Sky"])
    }

    func testChildContexts() throws {
        let container = try ExampleStack.container()

        let editor = ManagedObjectContext(concurrencyType: .privateQueue)
        editor.parent = container.viewContext
        try editor.performAndWait {
            let draft = try Post(context: editor)
            draft.title = "Draft"
            try editor.save()                         // into the view context, not the store
        }
        print(container.viewContext.hasChanges)       // true
        try container.viewContext.save()              // now it is stored

        let reader = container.newBackgroundContext()
        let titles = try reader.performAndWait { try reader.fetch(FetchRequest<Post>()).map(\.title) }
        XCTAssertEqual(titles, ["Draft"])
    }

    func testAutomaticMerging() throws {
        let container = try ExampleStack.seeded()
        let postID = try container.viewContext.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'"))[0].objectID

        let follower = container.newBackgroundContext()
        follower.automaticallyMergesChangesFromParent = true
        let shown = try follower.performAndWait { try follower.existingObject(with: postID) as? Post }
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            try writer.existingObject(with: postID).setValue("Retitled", forKey: "title")
            try writer.save()
        }
        follower.performAndWait { print(shown?.title ?? "") }    // Retitled: merged on the follower's queue

        XCTAssertEqual(follower.performAndWait { shown?.title }, "Retitled")

        // Without automatic merging, a context keeps the values it read.
        let stale = container.newBackgroundContext()
        let held = try stale.performAndWait { try stale.existingObject(with: postID) as? Post }
        try writer.performAndWait {
            try writer.existingObject(with: postID).setValue("Retitled again", forKey: "title")
            try writer.save()
        }
        XCTAssertEqual(stale.performAndWait { held?.title }, "Retitled")
    }

    func testOptimisticLocking() throws {
        let container = try ExampleStack.seeded()
        let postID = try container.viewContext.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'"))[0].objectID

        _ = printed.take()

        let editorA = container.newBackgroundContext()
        let editorB = container.newBackgroundContext()
        try editorA.performAndWait { try editorA.existingObject(with: postID).setValue("Title from A", forKey: "title") }
        try editorB.performAndWait { try editorB.existingObject(with: postID).setValue("Title from B", forKey: "title") }
        try editorA.performAndWait { try editorA.save() }
        do {
            try editorB.performAndWait { try editorB.save() }        // B read the post before A saved
        } catch let error as MergeConflictError {
            print(error.conflicts.count)                             // 1
            editorB.mergePolicy = .mergeByPropertyObjectTrump        // B's changes win, property by property
            try editorB.performAndWait { try editorB.save() }
        }

        XCTAssertEqual(printed.take(), ["1"], "the first save met a conflict")
        let reader = container.newBackgroundContext()
        let title = try reader.performAndWait { try (reader.existingObject(with: postID) as? Post)?.title }
        XCTAssertEqual(title, "Title from B")
    }

    func testImportAndDedupe() throws {
        let container = try ExampleStack.seeded()   // already holds Ada, ada@example.com, with two posts

        let importer = container.newBackgroundContext()
        importer.mergePolicy = .mergeByPropertyObjectTrump
        try importer.performAndWait {
            for (name, email) in [("Ada", "ada@example.com"), ("Ada Lovelace", "ada@example.com")] {
                let author = try Author(context: importer)
                author.name = name
                author.email = email
            }
            try importer.save()                       // one author: the last new object's values win
        }

        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let adas = try reader.fetch(FetchRequest<Author>(entityName: "Author", predicate: try StorePredicate(format: "email == %@", "ada@example.com")))
            XCTAssertEqual(adas.map(\.name), ["Ada Lovelace"])
            XCTAssertEqual(adas.first?.posts.count, 2, "the stored author's posts are kept")
            XCTAssertEqual(try reader.count(for: FetchRequest<Author>()), 2)
        }

        // Under the default policy, the same import fails and writes nothing.
        let strict = container.newBackgroundContext()
        XCTAssertThrowsError(try strict.performAndWait {
            let author = try Author(context: strict)
            author.email = "grace@example.com"
            try strict.save()
        }) { error in
            XCTAssertEqual((error as? ObjectValidationError)?.code, .uniquenessConstraint, "\(error)")
        }
    }
}
