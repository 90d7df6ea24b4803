import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Faults, uniquing, inverse maintenance, typed and keyed access.
final class ObjectGraphTests: XCTestCase {
    private func savedPost(in container: PersistentContainer, comments: Int = 2) throws -> ManagedObjectID {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Misty Morning"
            for n in 0..<comments {
                let comment = try Comment(context: context)
                comment.text = "comment \(n)"
                comment.post = post
            }
            try context.save()
            return post.objectID
        }
    }

    func testFetchedAndRelatedObjectsAreFaultsUntilTouched() throws {
        let container = try TestStack.container()
        let id = try savedPost(in: container)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try XCTUnwrap(context.fetch(FetchRequest<Post>()).first)
            XCTAssertEqual(post.objectID, id)
            XCTAssertTrue(post.isFault)
            XCTAssertEqual(post.awakeFromFetchCalls, 0)
            XCTAssertEqual(post.title, "Misty Morning")
            XCTAssertFalse(post.isFault)
            XCTAssertEqual(post.awakeFromFetchCalls, 1)
            XCTAssertTrue(post.hasFault(forRelationshipNamed: "comments"))
            let comments = post.comments
            XCTAssertFalse(post.hasFault(forRelationshipNamed: "comments"))
            XCTAssertEqual(comments.count, 2)
            XCTAssertTrue(comments.allSatisfy(\.isFault))
            XCTAssertEqual(Set(comments.map(\.text)), ["comment 0", "comment 1"])
            XCTAssertTrue(comments.allSatisfy { !$0.isFault && $0.post === post })
        }
    }

    func testReturnsObjectsAsFaultsFalseLoadsValues() throws {
        let container = try TestStack.container()
        _ = try savedPost(in: container)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<Post>()
            request.returnsObjectsAsFaults = false
            let post = try XCTUnwrap(context.fetch(request).first)
            XCTAssertFalse(post.isFault)
            XCTAssertEqual(post.awakeFromFetchCalls, 1)
        }
    }

    func testUniquingGivesOneObjectPerIDPerContext() throws {
        let container = try TestStack.container()
        let id = try savedPost(in: container)
        let context = container.newBackgroundContext()
        let other = container.newBackgroundContext()
        try context.performAndWait {
            let first = try context.fetch(FetchRequest<Post>())
            let second = try context.fetch(FetchRequest<Post>())
            XCTAssertTrue(first[0] === second[0])
            XCTAssertTrue(try context.object(with: id) === first[0])
            let viaComment = try XCTUnwrap(context.fetch(FetchRequest<Comment>()).first?.post)
            XCTAssertTrue(viaComment === first[0])
            let elsewhere = try other.performAndWait { try other.object(with: id) }
            XCTAssertFalse(elsewhere === first[0])
        }
    }

    func testSettingEitherSideOfARelationshipUpdatesTheOther() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let a = try Post(context: context)
            let b = try Post(context: context)
            let comment = try Comment(context: context)
            comment.post = a
            XCTAssertEqual(a.comments, [comment])
            b.comments.insert(comment)
            XCTAssertTrue(comment.post === b)
            XCTAssertTrue(a.comments.isEmpty, "moving a comment takes it out of its old post")
            comment.post = nil
            XCTAssertTrue(b.comments.isEmpty)

            let swift = try Tag(context: context)
            swift.name = "swift"
            a.tags.insert(swift)
            b.tags.insert(swift)
            XCTAssertEqual(swift.posts, [a, b])
            swift.posts.remove(a)
            XCTAssertTrue(a.tags.isEmpty)
            XCTAssertEqual(b.tags, [swift])

            let photos = try (0..<3).map { n -> Photo in
                let photo = try Photo(context: context)
                photo.caption = "p\(n)"
                return photo
            }
            a.photos = photos.reversed()
            XCTAssertEqual(a.photos.map(\.caption), ["p2", "p1", "p0"])
            XCTAssertTrue(photos.allSatisfy { $0.post === a })
            a.photos = [photos[0], photos[2], photos[1]]
            XCTAssertEqual(a.photos.map(\.caption), ["p0", "p2", "p1"])
            photos[1].post = b
            XCTAssertEqual(a.photos.map(\.caption), ["p0", "p2"])
            XCTAssertEqual(b.photos.map(\.caption), ["p1"])
        }
    }

    func testOrderedRelationshipKeepsItsOrderThroughASave() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        let id = try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Gallery"
            post.photos = try ["c", "a", "b"].map { caption in
                let photo = try Photo(context: context)
                photo.caption = caption
                return photo
            }
            try context.save()
            return post.objectID
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let post = try XCTUnwrap(reader.existingObject(with: id) as? Post)
            XCTAssertEqual(post.photos.map(\.caption), ["c", "a", "b"])
        }
    }

    func testKeyedAccessConvertsAndChecksTypes() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try context.insertNewObject(forEntityName: "Post")
            XCTAssertTrue(post is Post)
            try post.setValue("Keyed", forKey: "title")
            try post.setValue(42, forKey: "views")
            XCTAssertEqual(try post.value(forKey: "title") as? String, "Keyed")
            XCTAssertEqual(try post.value(forKey: "views") as? Int64, 42)
            XCTAssertEqual(try post.storeValue(forKey: "views"), .integer(42))

            XCTAssertThrowsError(try post.setValue("many", forKey: "views")) { error in
                XCTAssertEqual((error as? ObjectValidationError)?.code, .wrongType)
                XCTAssertEqual((error as? ObjectValidationError)?.key, "views")
            }
            XCTAssertEqual(try post.value(forKey: "views") as? Int64, 42, "a refused value changes nothing")
            XCTAssertThrowsError(try post.setValue(1, forKey: "nope")) { error in
                XCTAssertEqual((error as? ModelError)?.code, .unknownKey)
            }
            XCTAssertThrowsError(try post.value(forKey: "nope"))

            let comment = try context.insertNewObject(forEntityName: "Comment")
            try post.add(comment, toRelationship: "comments")
            XCTAssertTrue(try comment.value(forKey: "post") as? ManagedObject === post)
            XCTAssertEqual((try post.value(forKey: "comments") as? Set<ManagedObject>)?.count, 1)
            XCTAssertThrowsError(try post.setValue(comment, forKey: "author")) { error in
                XCTAssertEqual((error as? ObjectValidationError)?.code, .wrongType)
            }
            try post.remove(comment, fromRelationship: "comments")
            XCTAssertNil(try comment.value(forKey: "post"))

            let item = try context.insertNewObject(forEntityName: "Film")
            try item.setValue(Int16(90), forKey: "minutes")
            XCTAssertThrowsError(try item.setValue(Int64.max, forKey: "minutes"), "does not fit Integer 32")
            XCTAssertThrowsError(try context.insertNewObject(forEntityName: "Item")) { error in
                XCTAssertEqual((error as? ModelError)?.code, .abstractEntity)
            }
            XCTAssertThrowsError(try context.insertNewObject(forEntityName: "Ghost")) { error in
                XCTAssertEqual((error as? ModelError)?.code, .unknownEntity)
            }
        }
    }

    func testExplicitKeyOnATypedProperty() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let author = try Author(context: context)
            author.emailAddress = "ada@example.com"
            XCTAssertEqual(try author.value(forKey: "email") as? String, "ada@example.com")
        }
    }

    func testChangedAndCommittedValues() throws {
        let container = try TestStack.container()
        let id = try savedPost(in: container, comments: 0)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try XCTUnwrap(context.existingObject(with: id) as? Post)
            XCTAssertFalse(post.hasChanges)
            XCTAssertTrue(post.changedValues().isEmpty)
            post.title = "Renamed"
            XCTAssertTrue(post.isUpdated)
            XCTAssertEqual(post.changedValues()["title"] as? String, "Renamed")
            XCTAssertEqual(post.committedValues(forKeys: ["title"])["title"] as? String, "Misty Morning")
            try context.save()
            XCTAssertFalse(post.hasChanges)
            XCTAssertEqual(post.committedValues(forKeys: ["title"])["title"] as? String, "Renamed")
        }
    }

    /// An object whose entity has attributes only keeps just the values its changes replaced:
    /// its committed values must still be the loaded ones after several changes, the saved ones
    /// after a save, the stored ones after a merging refresh, and a rollback must return to them.
    func testCommittedValuesOfAnObjectWithAttributesOnlyFollowChangesSavesRefreshesAndRollbacks() throws {
        let container = try TestStack.container()
        let setUp = container.newBackgroundContext()
        let id = try setUp.performAndWait {
            let book = try setUp.insertNewObject(forEntityName: "Book")
            try book.setValue("Dune", forKey: "label")
            try book.setValue("111", forKey: "isbn")
            try setUp.save()
            return book.objectID
        }
        func committed(_ book: ManagedObject) -> [String] {
            let values = book.committedValues(forKeys: ["label", "isbn"])
            return [values["label"] as? String ?? "-", values["isbn"] as? String ?? "-"]
        }
        func current(_ book: ManagedObject) throws -> [String] {
            [try book.value(forKey: "label") as? String ?? "-", try book.value(forKey: "isbn") as? String ?? "-"]
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let book = try context.existingObject(with: id)
            try book.setValue("Dune Messiah", forKey: "label")
            try book.setValue("Children of Dune", forKey: "label")
            XCTAssertEqual(committed(book), ["Dune", "111"])
            XCTAssertEqual(book.changedValues().keys.sorted(), ["label"])
            try book.setValue("222", forKey: "isbn")
            XCTAssertEqual(committed(book), ["Dune", "111"])
            context.rollback()
            XCTAssertEqual(try current(book), ["Dune", "111"])
            XCTAssertFalse(book.hasChanges)

            try book.setValue("Dune 2", forKey: "label")
            try context.save()
            XCTAssertEqual(committed(book), ["Dune 2", "111"])
            try book.setValue("333", forKey: "isbn")
            XCTAssertEqual(committed(book), ["Dune 2", "111"])
            XCTAssertEqual(book.changedValues().keys.sorted(), ["isbn"])

            let other = container.newBackgroundContext()
            try other.performAndWait {
                try other.existingObject(with: id).setValue("Dune 3", forKey: "label")
                try other.save()
            }
            context.refresh(book, mergeChanges: true)
            XCTAssertEqual(try current(book), ["Dune 3", "333"])
            XCTAssertEqual(committed(book), ["Dune 3", "111"])
            context.rollback()
            XCTAssertEqual(try current(book), ["Dune 3", "111"])
        }
    }

    /// A fetched object's committed values are its loaded ones until it changes: the first change
    /// of an attribute, a to-one or a to-many keeps them as they were, a save makes the saved
    /// values committed, and a rollback returns to them.
    func testCommittedRelationshipsOfAFetchedObjectSurviveItsFirstChange() throws {
        let container = try TestStack.container()
        let id = try savedPost(in: container, comments: 2)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let comments = try context.fetch(FetchRequest<Comment>())
            XCTAssertEqual(comments.count, 2)
            let comment = try XCTUnwrap(comments.first)
            XCTAssertEqual(comment.committedValues(forKeys: ["post"])["post"] as? ManagedObjectID, id)
            let post = try XCTUnwrap(comment.post)
            let committedComments = Set(try XCTUnwrap(post.committedValues(forKeys: ["comments"])["comments"] as? [ManagedObjectID]))
            XCTAssertEqual(committedComments, Set(comments.map(\.objectID)))

            // The first change is to a relationship: the committed values stay as loaded.
            let other = try Post(context: context)
            other.title = "Other"
            comment.post = other
            XCTAssertEqual(comment.committedValues(forKeys: ["post"])["post"] as? ManagedObjectID, id)
            XCTAssertEqual(comment.changedValues().keys.sorted(), ["post"])
            XCTAssertEqual(Set(try XCTUnwrap(post.committedValues(forKeys: ["comments"])["comments"] as? [ManagedObjectID])), committedComments)
            XCTAssertEqual(post.comments.count, 1)
            comment.text = "changed"
            XCTAssertEqual(comment.committedValues(forKeys: ["text"])["text"] as? String, "comment 0")

            context.rollback()
            XCTAssertEqual(comment.text, "comment 0")
            XCTAssertEqual(comment.post?.objectID, id)
            XCTAssertEqual(post.comments.count, 2)

            // After a save, the saved values are the committed ones.
            comment.text = "saved"
            try context.save()
            XCTAssertEqual(comment.committedValues(forKeys: ["text"])["text"] as? String, "saved")
            XCTAssertTrue(comment.changedValues().isEmpty)
            comment.text = "again"
            XCTAssertEqual(comment.committedValues(forKeys: ["text"])["text"] as? String, "saved")
            XCTAssertEqual(comment.changedValues()["text"] as? String, "again")
        }
    }

    func testSavedValuesBecomeTheCommittedStateOfAnEntityWithAttributesOnly() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Reading") {
                .attribute("value", .double, optional: false, defaultValue: .double(0))
                .attribute("label", .string)
            }
        }
        let container = try TestStack.container(model)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let reading = try context.insertNewObject(forEntityName: "Reading")
            try reading.setValue(1.5, forKey: "value")
            try reading.setValue("first", forKey: "label")
            try context.save()

            try reading.setValue(2.5, forKey: "value")
            try context.save()
            XCTAssertEqual(reading.committedValues(forKeys: nil)["value"] as? Double, 2.5)
            XCTAssertEqual(reading.committedValues(forKeys: nil)["label"] as? String, "first")

            // A change after the save leaves the committed state as saved, and rolling back returns to it.
            try reading.setValue("second", forKey: "label")
            XCTAssertEqual(reading.changedValues().keys.sorted(), ["label"])
            XCTAssertEqual(reading.committedValues(forKeys: ["label"])["label"] as? String, "first")
            context.rollback()
            XCTAssertEqual(try reading.value(forKey: "label") as? String, "first")
            XCTAssertEqual(try reading.value(forKey: "value") as? Double, 2.5)
        }
        // Another context reads what was saved, and saving over it again is no conflict.
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let readings = try other.fetch(FetchRequest<ManagedObject>(entityName: "Reading"))
            XCTAssertEqual(readings.count, 1)
            XCTAssertEqual(try readings.first?.value(forKey: "value") as? Double, 2.5)
        }
        try context.performAndWait {
            let reading = try XCTUnwrap(context.registeredObjects.first)
            try reading.setValue(3.5, forKey: "value")
            try context.save()
        }
        try other.performAndWait {
            other.refreshAllObjects()
            let reading = try XCTUnwrap(try other.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).first)
            XCTAssertEqual(try reading.value(forKey: "value") as? Double, 3.5)
        }
    }

    func testLifecycleHooksRun() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            XCTAssertEqual(post.awakeFromInsertCalls, 1)
            XCTAssertEqual(post.timestamp, Date(timeIntervalSinceReferenceDate: 0), "awakeFromInsert set an initial value")
            post.title = "Hooks"
            try context.save()
            XCTAssertEqual(post.willSaveCalls, 1)
            XCTAssertEqual(post.didSaveCalls, 1)
            context.delete(post)
            try context.save()
            XCTAssertEqual(post.prepareForDeletionCalls, 1)
            XCTAssertEqual(post.didSaveCalls, 2)
            XCTAssertNil(post.managedObjectContext)
        }
    }
}
