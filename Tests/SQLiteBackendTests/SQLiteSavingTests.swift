import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// Saves: uniqueness constraints, optimistic locking under every merge policy, external
/// binary storage.
final class SQLiteSavingTests: XCTestCase {
    /// Saves a tag (tag names are unique) and returns its ID.
    @discardableResult
    private func saveTag(named name: String, in stack: SQLiteTestStore) throws -> ManagedObjectID {
        let context = stack.container.newBackgroundContext()
        return try context.performAndWait {
            let tag = try Tag(context: context)
            tag.name = name
            try context.save()
            return tag.objectID
        }
    }

    func testUniquenessConflictGivesTypedErrorAndWritesNothing() throws {
        let stack = try SQLiteTestStore()
        let existing = try saveTag(named: "fog", in: stack)
        let other = stack.container.newBackgroundContext()
        try other.performAndWait {
            let post = try Post(context: other)
            post.title = "should not be saved"
            let tag = try Tag(context: other)
            tag.name = "fog"
            XCTAssertThrowsError(try other.save()) { error in
                let validation = error as? ObjectValidationError
                XCTAssertEqual(validation?.code, .uniquenessConstraint, "\(error)")
                XCTAssertEqual(validation?.objectID?.entityName, "Tag")
                XCTAssertTrue(validation?.message.contains(existing.uriRepresentation.absoluteString) == true, "names the object holding the value: \(error)")
            }
            XCTAssertTrue(other.hasChanges, "the context keeps its changes")
        }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZPOST"), [.integer(0)], "nothing of the failed save was written")
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZTAG"), [.integer(1)])
    }

    func testFailedSaveSpendsNoPrimaryKeysAndKeepsTemporaryIDs() throws {
        let stack = try SQLiteTestStore()
        try saveTag(named: "fog", in: stack)
        let other = stack.container.newBackgroundContext()
        try other.performAndWait {
            let post = try Post(context: other)
            post.title = "first"
            let tag = try Tag(context: other)
            tag.name = "fog"
            XCTAssertThrowsError(try other.save())
            XCTAssertTrue(post.objectID.isTemporaryID, "a failed save gives new objects back their temporary IDs")
            XCTAssertTrue(other.registeredObject(for: post.objectID) === post)
            XCTAssertEqual(try stack.column("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post'"), [.integer(0)], "no key was spent")
            tag.name = "mist"
            try other.save()
            XCTAssertEqual(post.objectID.primaryKey, 1, "the retried save takes the first key")
            XCTAssertEqual(tag.objectID.primaryKey, 2)
        }
        XCTAssertEqual(try stack.column("SELECT Z_PK FROM ZPOST"), [.integer(1)])
    }

    /// New objects with and without permanent IDs obtained before a failed save: each temporary
    /// one gets back the very ID it had (registered under it again), the others keep theirs.
    func testFailedSaveGivesEachNewObjectBackItsOwnID() throws {
        let stack = try SQLiteTestStore()
        try saveTag(named: "fog", in: stack)
        let other = stack.container.newBackgroundContext()
        try other.performAndWait {
            let posts = try (0..<3).map { number in
                let post = try Post(context: other)
                post.title = "post \(number)"
                return post
            }
            try other.obtainPermanentIDs(for: [posts[1]])
            let tag = try Tag(context: other)
            tag.name = "fog"
            let before = posts.map(\.objectID) + [tag.objectID]
            XCTAssertEqual(before.map(\.isTemporaryID), [true, false, true, true])
            XCTAssertThrowsError(try other.save())
            XCTAssertEqual(posts.map(\.objectID) + [tag.objectID], before, "each object has the ID it had before the save")
            for (object, id) in zip(posts + [tag], before) {
                XCTAssertTrue(other.registeredObject(for: id) === object, "registered under \(id)")
            }
        }
    }

    /// Two contexts read the same post; the second changes `views` and saves first.
    private func saveInConflict(
        policy: MergePolicy, theirs: @escaping (Post) -> Void, mine: @escaping (Post) -> Void
    ) throws -> (post: (title: String, views: Int64), stored: [SQLValue], error: Error?) {
        let stack = try SQLiteTestStore()
        let id = try XCTUnwrap(try stack.savePosts(["Base"]).first)
        let first = stack.container.newBackgroundContext()
        let (container, _) = try stack.reopen()
        let second = container.newBackgroundContext()
        try first.performAndWait { _ = (try first.existingObject(with: id) as? Post)?.title }
        try second.performAndWait {
            theirs(try XCTUnwrap(second.existingObject(with: id) as? Post))
            try second.save()
        }
        var failure: Error?
        let result = try first.performAndWait {
            let post = try XCTUnwrap(first.existingObject(with: id) as? Post)
            mine(post)
            first.mergePolicy = policy
            do { try first.save() } catch { failure = error }
            return (post.title, post.views)
        }
        return (result, try stack.column("SELECT ZTITLE || '/' || ZVIEWS || '/' || Z_OPT || '/' || IFNULL(hex(ZIMAGE), '') FROM ZPOST"), failure)
    }

    /// A save's writer works out each entity's table once and reuses the last `UPDATE` of a
    /// table: rows of several entities, interleaved, with different sets of changed properties,
    /// must each reach their own table, and deletes must clear their join-table rows.
    func testInterleavedChangesOfSeveralEntitiesReachTheirOwnRows() throws {
        let stack = try SQLiteTestStore()
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            for number in 1...6 {
                let post = try Post(context: context)
                post.title = "post \(number)"
                let tag = try Tag(context: context)
                tag.name = "tag \(number)"
                post.tags = [tag]
            }
            try context.save()
        }
        let other = stack.container.newBackgroundContext()
        try other.performAndWait {
            let posts = try other.fetch(FetchRequest<Post>()).sorted { $0.title < $1.title }
            let tags = try other.fetch(FetchRequest<Tag>()).sorted { $0.name < $1.name }
            for (number, (post, tag)) in zip(posts, tags).enumerated() {
                post.title = "changed \(number + 1)"
                if number % 2 == 1 { post.views = Int64(number + 1) }
                tag.name = "renamed \(number + 1)"
            }
            try other.save()
        }
        XCTAssertEqual(try stack.column("SELECT ZTITLE FROM ZPOST ORDER BY ZTITLE"), (1...6).map { .text("changed \($0)") })
        XCTAssertEqual(try stack.column("SELECT ZVIEWS FROM ZPOST ORDER BY ZTITLE"), (1...6).map { .integer($0 % 2 == 0 ? Int64($0) : 0) })
        XCTAssertEqual(try stack.column("SELECT ZNAME FROM ZTAG ORDER BY ZNAME"), (1...6).map { .text("renamed \($0)") })
        let joinTables = try stack.column("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z^_%' ESCAPE '^' AND name LIKE '%TAGS'")
        guard case .text(let joinTable)? = joinTables.first else { return XCTFail("no join table of Post.tags: \(joinTables)") }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM \(joinTable)"), [.integer(6)])

        try other.performAndWait {
            let posts = try other.fetch(FetchRequest<Post>()).sorted { $0.title < $1.title }
            let tags = try other.fetch(FetchRequest<Tag>()).sorted { $0.name < $1.name }
            for (post, tag) in zip(posts, tags).prefix(4) {
                other.delete(post)
                other.delete(tag)
            }
            try other.save()
        }
        XCTAssertEqual(try stack.column("SELECT ZTITLE FROM ZPOST ORDER BY ZTITLE"), [.text("changed 5"), .text("changed 6")])
        XCTAssertEqual(try stack.column("SELECT ZNAME FROM ZTAG ORDER BY ZNAME"), [.text("renamed 5"), .text("renamed 6")])
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM \(joinTable)"), [.integer(2)], "the deleted posts' join rows are gone")
    }

    /// A save's new objects take their keys by runs of one entity, and its writer finds each
    /// table's rows as a range while they follow each other: new objects of two entities,
    /// interleaved and not, must each get the next key of their own entity, in order, with their
    /// own values in that row.
    func testNewObjectsOfSeveralEntitiesInRunsTakeTheirKeysInOrder() throws {
        let stack = try SQLiteTestStore()
        let context = stack.container.newBackgroundContext()
        let (postKeys, tagKeys) = try context.performAndWait {
            var posts: [Post] = [], tags: [Tag] = []
            // Three posts, then posts and tags in turn, then three tags.
            for number in 1...3 {
                posts.append(try Post(context: context))
                posts[posts.count - 1].title = "post \(number)"
            }
            for number in 4...6 {
                posts.append(try Post(context: context))
                posts[posts.count - 1].title = "post \(number)"
                tags.append(try Tag(context: context))
                tags[tags.count - 1].name = "tag \(number - 3)"
            }
            for number in 4...6 {
                tags.append(try Tag(context: context))
                tags[tags.count - 1].name = "tag \(number)"
            }
            try context.save()
            return (posts.map(\.objectID.primaryKey), tags.map(\.objectID.primaryKey))
        }
        XCTAssertEqual(postKeys, (1...6).map { Int64($0) })
        XCTAssertEqual(tagKeys, (1...6).map { Int64($0) })
        XCTAssertEqual(try stack.column("SELECT Z_PK || '=' || ZTITLE FROM ZPOST ORDER BY Z_PK"), (1...6).map { .text("\($0)=post \($0)") })
        XCTAssertEqual(try stack.column("SELECT Z_PK || '=' || ZNAME FROM ZTAG ORDER BY Z_PK"), (1...6).map { .text("\($0)=tag \($0)") })
        XCTAssertEqual(try stack.column("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME IN ('Post', 'Tag') ORDER BY Z_NAME"), [.integer(6), .integer(6)])
    }

    /// The updates of one save that change the same attributes share what they hold; one of
    /// them that also changes a relationship must write it alone, and the others must not.
    func testUpdatesChangingTheSameAttributesWriteOnlyTheirOwnRelationshipChanges() throws {
        let stack = try SQLiteTestStore()
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            let first = try Post(context: context), second = try Post(context: context)
            first.title = "first"
            second.title = "second"
            for number in 1...3 {
                let comment = try Comment(context: context)
                comment.text = "comment \(number)"
                comment.post = first
            }
            try context.save()
        }
        let other = stack.container.newBackgroundContext()
        try other.performAndWait {
            let comments = try other.fetch(FetchRequest<Comment>()).sorted { $0.text < $1.text }
            let second = try XCTUnwrap(other.fetch(FetchRequest<Post>()).first { $0.title == "second" })
            for comment in comments { comment.author = "ada" }
            comments[1].post = second
            comments[2].author = "grace"
            try other.save()
        }
        XCTAssertEqual(try stack.column("SELECT ZAUTHOR FROM ZCOMMENT ORDER BY ZTEXT"), [.text("ada"), .text("ada"), .text("grace")])
        XCTAssertEqual(
            try stack.column("SELECT P.ZTITLE FROM ZCOMMENT C JOIN ZPOST P ON P.Z_PK = C.ZPOST ORDER BY C.ZTEXT"),
            [.text("first"), .text("second"), .text("first")])
    }

    func testOptimisticLockingUnderEveryMergePolicy() throws {
        let theirs: (Post) -> Void = { $0.views = 10; $0.title = "Theirs" }
        let mine: (Post) -> Void = { $0.title = "Mine" }

        let error = try saveInConflict(policy: .error, theirs: theirs, mine: mine)
        let conflict = (error.error as? MergeConflictError)?.conflicts.first
        XCTAssertEqual(conflict?.expectedVersion, 1)
        XCTAssertEqual(conflict?.storeVersion, 2)
        XCTAssertEqual(error.stored, [.text("Theirs/10/2/")], "the store keeps the other save")

        let objectTrump = try saveInConflict(policy: .mergeByPropertyObjectTrump, theirs: theirs, mine: mine)
        XCTAssertNil(objectTrump.error)
        XCTAssertEqual(objectTrump.stored, [.text("Mine/10/3/")])

        let storeTrump = try saveInConflict(policy: .mergeByPropertyStoreTrump, theirs: theirs, mine: { $0.title = "Mine"; $0.image = Data([9]) })
        XCTAssertNil(storeTrump.error)
        XCTAssertEqual(storeTrump.stored, [.text("Theirs/10/3/09")], "store values win for properties changed in both; mine survive elsewhere")

        let overwrite = try saveInConflict(policy: .overwrite, theirs: theirs, mine: mine)
        XCTAssertNil(overwrite.error)
        XCTAssertEqual(overwrite.stored.count, 1)
        if case .text(let row)? = overwrite.stored.first { XCTAssertTrue(row.hasPrefix("Mine/"), row) }

        let rollback = try saveInConflict(policy: .rollback, theirs: theirs, mine: mine)
        XCTAssertNil(rollback.error)
        XCTAssertEqual(rollback.post.title, "Theirs", "the context takes the store's values")
        XCTAssertEqual(rollback.stored, [.text("Theirs/10/2/")])
    }

    func testExternalBinaryValuesLiveInFilesBesideTheStore() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Photo") {
                .attribute("caption", .string)
                .attribute("bytes", .binaryData, allowsExternalBinaryDataStorage: true)
            }
        }
        let stack = try SQLiteTestStore(model) { $0.setOption(.integer(64), forKey: .sqliteExternalStorageThreshold) }
        let directory = stack.directory.url.appendingPathComponent(".Blog_SUPPORT/_EXTERNAL_DATA")
        let big = Data((0..<1000).map { UInt8($0 % 251) })
        let context = stack.container.newBackgroundContext()
        let ids = try context.performAndWait {
            let large = try context.insertNewObject(forEntityName: "Photo")
            try large.setValue(big, forKey: "bytes")
            let small = try context.insertNewObject(forEntityName: "Photo")
            try small.setValue(Data([1, 2, 3]), forKey: "bytes")
            try context.save()
            return (large.objectID, small.objectID)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(files.count, 1, "only the value above the threshold goes to a file")
        let (reopened, _) = try stack.reopen()
        let reader = reopened.newBackgroundContext()
        try reader.performAndWait {
            XCTAssertEqual(try reader.existingObject(with: ids.0).value(forKey: "bytes") as? Data, big)
            XCTAssertEqual(try reader.existingObject(with: ids.1).value(forKey: "bytes") as? Data, Data([1, 2, 3]))
            reader.delete(try reader.existingObject(with: ids.0))
            try reader.save()
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "the file goes with its row")
    }
}
