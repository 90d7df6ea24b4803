import Foundation
import StoreCore
import XCTest

/// The behaviour every store shares, with persistent stores closed and opened again between
/// steps (see ``StoreTestKit/checkConformance()``).
struct ConformanceSuite {
    let kit: StoreTestKit

    /// Runs one check of the suite on the kit's store, failures naming the store and the check.
    private func forEachBackend(_ name: String = #function, _ body: (StoreTestKit) throws -> Void) {
        kit.check(name) { try body(kit) }
    }

    /// Runs `body` once per backend, naming the backend in every failure.

    /// Saves two posts with comments, shared tags, an ordered gallery and an author, plus two
    /// objects of sub-entities of an abstract entity.
    private func saveBlog(in stack: StoreTestStack) throws {
        let context = stack.newContext()
        try context.performAndWait {
            let ada = try Author(context: context)
            ada.name = "ada"
            ada.emailAddress = "ada@example.org"
            let swift = try Tag(context: context)
            swift.name = "swift"
            let linux = try Tag(context: context)
            linux.name = "linux"
            for (title, views) in [("Hello", Int64(5)), ("World", Int64(7))] {
                let post = try Post(context: context)
                post.title = title
                post.views = views
                post.image = Data(title.utf8)
                post.author = ada
                post.tags = title == "Hello" ? [swift, linux] : [swift]
                for text in ["\(title.lowercased()) one", "\(title.lowercased()) two"] {
                    let comment = try Comment(context: context)
                    comment.author = "bob"
                    comment.text = text
                    comment.post = post
                }
                post.photos = try ["c", "a", "b"].map { caption in
                    let photo = try Photo(context: context)
                    photo.caption = "\(title) \(caption)"
                    return photo
                }
            }
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("978-0", forKey: "isbn")
            try book.setValue("A Book", forKey: "label")
            let film = try context.insertNewObject(forEntityName: "Film")
            try film.setValue(Int32(94), forKey: "minutes")
            try context.save()
        }
    }

    /// A blog store on `backend` with the blog saved, closed and opened again.
    private func reopenedBlog(on backend: StoreTestKit) throws -> StoreTestStack {
        let stack = try backend.makeStack(model: BlogModel.make())
        try saveBlog(in: stack)
        try stack.reopen()
        return stack
    }

    private func posts(in context: ManagedObjectContext) throws -> [Post] {
        var request = FetchRequest<Post>()
        request.sortDescriptors = [.ascending("title")]
        return try context.fetch(request)
    }

    func testInsertedObjectsAndRelationshipsSurviveReopening() {
        forEachBackend { backend in
            let stack = try reopenedBlog(on: backend)
            let context = stack.newContext()
            try context.performAndWait {
                let posts = try posts(in: context)
                XCTAssertEqual(posts.map(\.title), ["Hello", "World"], "\(backend)")
                guard posts.count == 2 else { return }
                let hello = posts[0]
                XCTAssertEqual(hello.views, 5, "\(backend)")
                XCTAssertEqual(hello.image, Data("Hello".utf8), "\(backend)")
                XCTAssertEqual(hello.timestamp, Date(timeIntervalSinceReferenceDate: 0), "\(backend)")
                XCTAssertEqual(Set(hello.comments.map(\.text)), ["hello one", "hello two"], "\(backend)")
                XCTAssertEqual(Set(hello.tags.map(\.name)), ["swift", "linux"], "\(backend)")
                XCTAssertEqual(hello.photos.map(\.caption), ["Hello c", "Hello a", "Hello b"], "\(backend)")
                XCTAssertEqual(hello.author?.name, "ada", "\(backend)")
                XCTAssertEqual(hello.author?.emailAddress, "ada@example.org", "\(backend)")
                XCTAssertEqual(hello.author?.posts.count, 2, "\(backend)")
                let swift = try XCTUnwrap(hello.tags.first { $0.name == "swift" })
                XCTAssertEqual(Set(swift.posts.map(\.title)), ["Hello", "World"], "\(backend)")
                let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                XCTAssertEqual(Set(items.map(\.entity.name)), ["Book", "Film"], "\(backend)")
            }
        }
    }

    func testTheSharedQueryTableMatchesAfterReopening() {
        forEachBackend { backend in
            let stack = try backend.makeStack(model: QueryFixture.makeModel(), name: "Quakes")
            let fixture = try QueryCaseSuite.load(into: stack.store)
            try stack.reopen()
            let matched = try QueryCaseSuite.check(stack.store, holding: fixture, mayRefuse: kit.mayRefuseQuery)
            XCTAssertGreaterThan(matched, 250, "\(backend)")
        }
    }

    func testUpdatesAndDeleteRulesSurviveReopening() {
        forEachBackend { backend in
            let stack = try reopenedBlog(on: backend)
            var context = stack.newContext()
            try context.performAndWait {
                let posts = try posts(in: context)
                posts[1].title = "World, again"
                posts[1].photos = Array(posts[1].photos.reversed())
                context.delete(posts[0])
                try context.save()
            }
            try stack.reopen()
            context = stack.newContext()
            try context.performAndWait {
                let posts = try posts(in: context)
                XCTAssertEqual(posts.map(\.title), ["World, again"], "\(backend)")
                XCTAssertEqual(posts.first?.photos.map(\.caption), ["World b", "World a", "World c"], "\(backend)")
                // Cascade: the deleted post's comments and photos are gone; nullify: its tags stay.
                XCTAssertEqual(Set(try context.fetch(FetchRequest<Comment>()).map(\.text)), ["world one", "world two"], "\(backend)")
                XCTAssertEqual(try context.count(for: FetchRequest<Photo>()), 3, "\(backend)")
                let tags = try context.fetch(FetchRequest<Tag>())
                XCTAssertEqual(Set(tags.map(\.name)), ["swift", "linux"], "\(backend)")
                XCTAssertEqual(tags.first { $0.name == "linux" }?.posts.count, 0, "\(backend)")
                // Deny: an author with posts cannot be deleted, and nothing is saved.
                let author = try XCTUnwrap(try context.fetch(FetchRequest<Author>()).first)
                context.delete(author)
                XCTAssertThrowsError(try context.save(), "\(backend)")
                context.rollback()
            }
            try stack.reopen()
            context = stack.newContext()
            try context.performAndWait {
                XCTAssertEqual(try context.count(for: FetchRequest<Author>()), 1, "\(backend)")
                XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 1, "\(backend)")
            }
        }
    }

    func testUniquenessAndValidationFailuresSaveNothing() {
        forEachBackend { backend in
            let stack = try reopenedBlog(on: backend)
            let context = stack.newContext()
            try context.performAndWait {
                let duplicate = try Tag(context: context)
                duplicate.name = "swift"
                let post = try Post(context: context)
                post.title = "Also new"
                XCTAssertThrowsError(try context.save(), "\(backend): a second tag named swift") { error in
                    XCTAssertEqual((error as? ObjectValidationError)?.code, .uniquenessConstraint, "\(backend): \(error)")
                }
                context.rollback()
                let forbidden = try Post(context: context)
                forbidden.title = "forbidden"
                XCTAssertThrowsError(try context.save(), "\(backend): validateForInsert")
                context.rollback()
                let shouting = try Comment(context: context)
                shouting.author = "BOB"
                XCTAssertThrowsError(try context.save(), "\(backend): the author pattern") { error in
                    XCTAssertEqual((error as? ObjectValidationError)?.code, .patternMismatch, "\(backend): \(error)")
                }
                context.rollback()
            }
            try stack.reopen()
            let reopened = stack.newContext()
            try reopened.performAndWait {
                XCTAssertEqual(try reopened.count(for: FetchRequest<Tag>()), 2, "\(backend)")
                XCTAssertEqual(try posts(in: reopened).map(\.title), ["Hello", "World"], "\(backend)")
                XCTAssertEqual(try reopened.count(for: FetchRequest<Comment>()), 4, "\(backend)")
            }
        }
    }

    func run() {
        testInsertedObjectsAndRelationshipsSurviveReopening()
        testTheSharedQueryTableMatchesAfterReopening()
        testUpdatesAndDeleteRulesSurviveReopening()
        testUniquenessAndValidationFailuresSaveNothing()
    }
}
