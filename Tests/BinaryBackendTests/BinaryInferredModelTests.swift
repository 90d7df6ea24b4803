import BinaryBackend
import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Inspection mode on binary stores: entities, attribute types and relationship destinations
/// (from the keys they hold) rebuilt from the file.
final class BinaryInferredModelTests: XCTestCase {
    func testEntitiesAttributesAndRelationshipsAreRecovered() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.binarystore")
        let container = try TestStack.binaryContainer(at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Hello"
            let comment = try Comment(context: context)
            comment.text = "Hi"
            post.comments.insert(comment)
            try context.save()
        }
        let inferred = try InferredModel(binaryStoreAt: url)
        let model = inferred.model
        XCTAssertEqual(model.entitiesByName["Post"]?.attributesByName["title"]?.attributeType, .string)
        XCTAssertEqual(model.entitiesByName["Post"]?.attributesByName["views"]?.attributeType, .integer64)
        let comments = try XCTUnwrap(model.entitiesByName["Post"]?.relationshipsByName["comments"])
        XCTAssertTrue(comments.isToMany)
        XCTAssertEqual(comments.destinationEntityName, "Comment")
        XCTAssertEqual(comments.inverseName, "post")

        let inspecting = PersistentContainer(name: "Inspect", managedObjectModel: model)
        inspecting.persistentStoreDescriptions = [.inspecting(url, type: .binary)]
        try inspecting.loadPersistentStores()
        let reader = inspecting.newBackgroundContext()
        try reader.performAndWait {
            let post = try XCTUnwrap(reader.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            let members = try XCTUnwrap(post.value(forKey: "comments") as? Set<ManagedObject>)
            XCTAssertEqual(try members.first?.value(forKey: "text") as? String, "Hi")
            try post.setValue("Changed", forKey: "title")
            XCTAssertThrowsError(try reader.save()) { XCTAssertEqual(($0 as? StoreError)?.code, .readOnly) }
        }
    }

    func testAPropertyListThatIsNotABinaryStoreAsksForTheModel() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Other.plist")
        try Data("bplist00\u{D0}\u{08}\0\0\0\0\0\0\u{01}\u{01}\0\0\0\0\0\0\0\u{01}\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{09}".utf8).write(to: url)
        XCTAssertThrowsError(try InferredModel(binaryStoreAt: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .wrongFormat)
        }
    }
}
