import Foundation
import Stowage
import XCTest

/// ObjectsAndFaults.md: typed subclasses, access by key and its errors, relationship values,
/// faults, object IDs and deletion.
final class ObjectsAndFaultsExamples: XCTestCase {
    func testTypedSubclasses() throws {
        let container = try ExampleStack.container()
        let context = container.viewContext

        let ada = try Author(context: context)
        ada.name = "Ada"
        let post = try Post(context: context)
        post.title = "Misty Morning"
        ada.posts.insert(post)                 // the post's author is now ada
        let first = try Comment(context: context)
        post.$comments.insert(first)           // one member, without copying the set
        print(post.comments.count)             // 1

        XCTAssertEqual(post.comments.count, 1)
        XCTAssertTrue(first.post === post, "the inverse is set")
        XCTAssertTrue(try post.value(forKey: "author") as? Author === ada, "the inverse of Author.posts")
        try context.save()
    }

    func testWorkingByKey() throws {
        let container = try ExampleStack.container()
        let context = container.viewContext

        let note = try context.insertNewObject(forEntityName: "Post")
        try note.setValue("Harbour Lights", forKey: "title")
        try note.setValue(42, forKey: "views")
        let views = try note.value(forKey: "views") as? Int64        // 42: integers come back as Int64
        let title = try note.value(forKey: "title") as? String       // "Harbour Lights"
        print(title ?? "", views ?? 0)

        XCTAssertEqual(views, 42)
        XCTAssertEqual(title, "Harbour Lights")
        XCTAssertNil(try note.value(forKey: "views") as? Int, "integers are not Int by key")
        XCTAssertTrue(note is Post, "the entity's class")
        XCTAssertEqual((note as? Post)?.title, "Harbour Lights")

        let grace = try context.insertNewObject(forEntityName: "Author")
        try grace.setValue("Grace", forKey: "name")
        try grace.add(note, toRelationship: "posts")                         // note's author is grace
        let owner = try note.value(forKey: "author") as? ManagedObject       // to-one: the object, or nil
        let written = try grace.value(forKey: "posts") as? Set<ManagedObject> // to-many: a set
        let photo = try context.insertNewObject(forEntityName: "Photo")
        try note.setValue([photo], forKey: "attachments")
        let attached = try note.value(forKey: "attachments") as? [ManagedObject] // ordered: an array
        print(owner === grace, written?.count ?? 0, attached?.count ?? 0)   // true 1 1

        XCTAssertTrue(owner === grace)
        XCTAssertEqual(written, [note])
        XCTAssertEqual(attached?.count, 1)
        XCTAssertTrue(attached?.first === photo)
        XCTAssertTrue(try photo.value(forKey: "post") as? ManagedObject === note, "the inverse of an ordered to-many")

        _ = printed.take()
        do {
            try note.setValue("many", forKey: "views")
        } catch let error as ObjectValidationError {
            print(error.code, error.entity, error.key ?? "")     // wrongType Post views
        }
        do {
            _ = try note.value(forKey: "subtitle")
        } catch let error as ModelError {
            print(error.code, error.key ?? "")                   // unknownKey subtitle
        }

        XCTAssertEqual(printed.take(), ["wrongType Post views", "unknownKey subtitle"])
        XCTAssertEqual(try note.value(forKey: "views") as? Int64, 42, "a refused value leaves the object unchanged")
        try context.save()

        try grace.remove(note, fromRelationship: "posts")
        XCTAssertNil(try note.value(forKey: "author"))
    }

    func testFaults() throws {
        let container = try ExampleStack.seeded()

        _ = printed.take()

        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let comments = try reader.fetch(FetchRequest<Comment>())
            print(comments.allSatisfy(\.isFault))      // true: nothing read yet
            print(comments[0].text.isEmpty)            // reading a property fills the fault
            print(comments[0].isFault)                 // false

            var eager = FetchRequest<Post>()
            eager.returnsObjectsAsFaults = false       // load the values with the fetch
            print(try reader.fetch(eager).allSatisfy { !$0.isFault })   // true
        }

        XCTAssertEqual(printed.take(), ["true", "false", "false", "true"])
        let others = try reader.performAndWait { () throws -> [Bool] in
            let comments = try reader.fetch(FetchRequest<Comment>())
            return comments.map(\.isFault)
        }
        XCTAssertEqual(others.sorted { !$0 && $1 }, [false, true, true], "the one comment read is loaded; the others are still faults")

        // Fresh contexts, to see each kind of fetch on its own.
        let lazyReader = container.newBackgroundContext()
        try lazyReader.performAndWait {
            XCTAssertTrue(try lazyReader.fetch(FetchRequest<Comment>()).allSatisfy(\.isFault))
        }
        let eagerReader = container.newBackgroundContext()
        try eagerReader.performAndWait {
            var eager = FetchRequest<Comment>()
            eager.returnsObjectsAsFaults = false
            XCTAssertTrue(try eagerReader.fetch(eager).allSatisfy { !$0.isFault })
        }
    }

    func testObjectIDs() throws {
        let container = try ExampleStack.container()
        let context = container.viewContext

        let draft = try Post(context: context)
        draft.title = "Northern Sky"
        print(draft.objectID.isTemporaryID)           // true until saved
        try context.save()
        let id = draft.objectID                       // permanent now
        let uri = id.uriRepresentation                // x-coredata://<store>/Post/p<key>
        print(try context.existingObject(with: id) === draft)    // true: one object per ID
        let decoded = container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri)
        print(decoded == id)                          // true

        XCTAssertFalse(id.isTemporaryID)
        XCTAssertEqual(uri.scheme, "x-coredata")
        XCTAssertTrue(uri.path.hasPrefix("/Post/p"), uri.absoluteString)
        XCTAssertEqual(decoded, id)
        XCTAssertTrue(try context.existingObject(with: id) === draft)
        XCTAssertTrue(try context.object(with: id) === draft)

        // Another context turns the ID into its own object.
        let other = container.newBackgroundContext()
        let title = try other.performAndWait { try (other.existingObject(with: id) as? Post)?.title }
        XCTAssertEqual(title, "Northern Sky")
    }

    func testDeleting() throws {
        let container = try ExampleStack.container()
        let context = container.viewContext

        let doomed = try Post(context: context)
        let remark = try Comment(context: context)
        doomed.comments.insert(remark)
        context.delete(doomed)
        context.processPendingChanges()
        print(remark.isDeleted)                       // true: the comments cascade

        XCTAssertTrue(doomed.isDeleted)
        XCTAssertTrue(remark.isDeleted)
        try context.save()
        XCTAssertEqual(try context.count(for: FetchRequest<Comment>()), 0)
    }
}
