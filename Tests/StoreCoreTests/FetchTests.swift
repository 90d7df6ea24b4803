import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Fetch requests against the in-memory store, with and without pending changes.
final class FetchTests: XCTestCase {
    private func key(_ path: String, _ op: StoreComparison.Operator, _ value: StoreValue) -> StorePredicate {
        .comparison(StoreComparison(.keyPath(path), op, .constant(value)))
    }

    private func seeded() throws -> ManagedObjectContext {
        let context = try TestStack.context()
        try context.performAndWait {
            for (n, title) in ["delta", "alpha", "echo", "bravo", "charlie"].enumerated() {
                let post = try Post(context: context)
                post.title = title
                post.views = Int64(n * 10)
                let comment = try Comment(context: context)
                comment.author = n.isMultiple(of: 2) ? "ada" : "grace"
                comment.post = post
            }
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Dune", forKey: "label")
            let film = try context.insertNewObject(forEntityName: "Film")
            try film.setValue("Alien", forKey: "label")
            try context.save()
        }
        return context
    }

    func testPredicateSortLimitAndOffset() throws {
        let context = try seeded()
        try context.performAndWait {
            var request = FetchRequest<Post>()
            request.predicate = .and([key("views", .greaterThanOrEqualTo, 10), .not(key("title", .equalTo, "echo"))])
            request.sortDescriptors = [.ascending("title")]
            XCTAssertEqual(try context.fetch(request).map(\.title), ["bravo", "charlie", "alpha"].sorted())
            request.fetchOffset = 1
            request.fetchLimit = 1
            XCTAssertEqual(try context.fetch(request).map(\.title), ["bravo"])
            XCTAssertEqual(try context.count(for: request), 1)

            var either = FetchRequest<Post>(entityName: "Post", predicate: .or([key("title", .beginsWith, "a"), key("views", .lessThan, 5)]), sortDescriptors: [.descending("views")])
            XCTAssertEqual(try context.fetch(either).map(\.title), ["alpha", "delta"])
            either.predicate = key("title", .contains, .string("HAR"))
            XCTAssertEqual(try context.fetch(either).map(\.title), [])
            either.predicate = .comparison(StoreComparison(.keyPath("title"), .contains, .constant("HAR"), options: .caseInsensitive))
            XCTAssertEqual(try context.fetch(either).map(\.title), ["charlie"])
        }
    }

    func testKeyPathsThroughRelationshipsAndAnyModifier() throws {
        let context = try seeded()
        try context.performAndWait {
            var comments = FetchRequest<Comment>()
            comments.predicate = key("post.views", .greaterThan, 20)
            comments.sortDescriptors = [.ascending("post.title")]
            XCTAssertEqual(try context.fetch(comments).compactMap(\.post?.title), ["bravo", "charlie"])
            var posts = FetchRequest<Post>()
            posts.predicate = .comparison(StoreComparison(.keyPath("comments.author"), .equalTo, .constant("grace"), modifier: .any))
            posts.sortDescriptors = [.ascending("title")]
            XCTAssertEqual(try context.fetch(posts).map(\.title), ["alpha", "bravo"])
        }
    }

    func testResultTypesAndSubentities() throws {
        let context = try seeded()
        try context.performAndWait {
            let ids = try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Post"))
            XCTAssertEqual(ids.count, 5)
            XCTAssertTrue(ids.allSatisfy { $0.entityName == "Post" && !$0.isTemporaryID })
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")), 2)
            var onlyItems = FetchRequest<ManagedObject>(entityName: "Item")
            onlyItems.includesSubentities = false
            XCTAssertEqual(try context.count(for: onlyItems), 0)
            var items = FetchRequest<ManagedObject>(entityName: "Item")
            items.sortDescriptors = [.ascending("label")]
            XCTAssertEqual(try context.fetch(items).map(\.entity.name), ["Film", "Book"])
            XCTAssertThrowsError(try context.fetch(FetchRequest<Post>(entityName: "Comment"))) { error in
                XCTAssertEqual((error as? FetchError)?.code, .wrongResultType)
            }
            XCTAssertThrowsError(try context.fetch(FetchRequest<ManagedObject>(entityName: "Ghost"))) { error in
                XCTAssertEqual((error as? ModelError)?.code, .unknownEntity)
            }
            var badKey = FetchRequest<Post>()
            badKey.predicate = key("nope", .equalTo, 1)
            XCTAssertThrowsError(try context.fetch(badKey)) { error in
                XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
            }
        }
    }

    func testPendingChangesAreIncludedUnlessTurnedOff() throws {
        let context = try seeded()
        try context.performAndWait {
            let fresh = try Post(context: context)
            fresh.title = "aardvark"
            let alpha = try XCTUnwrap(context.fetch(FetchRequest<Post>()).first { $0.title == "alpha" })
            alpha.title = "zulu"
            let delta = try XCTUnwrap(context.fetch(FetchRequest<Post>()).first { $0.title == "delta" })
            context.delete(delta)

            var request = FetchRequest<Post>()
            request.sortDescriptors = [.ascending("title")]
            request.fetchLimit = 3
            XCTAssertEqual(try context.fetch(request).map(\.title), ["aardvark", "bravo", "charlie"])
            request.predicate = key("title", .beginsWith, "z")
            XCTAssertEqual(try context.fetch(request).map(\.title), ["zulu"])
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 5)

            var saved = FetchRequest<Post>()
            saved.includesPendingChanges = false
            saved.sortDescriptors = [.ascending("title")]
            XCTAssertEqual(try context.fetch(saved).count, 5)
            XCTAssertFalse(try context.fetch(saved).contains(fresh))
        }
    }
}

/// A typed fetch never drops objects silently: a sub-entity whose class is not the result's is
/// a `wrongResultType` error, and the untyped fetch or `includesSubentities = false` still works.
final class TypedSubentityFetchTests: XCTestCase {
    final class Animal: ManagedObject {
        @Attribute var name: String?
    }

    func testASubentityOfAnotherClassIsAnErrorNotAGap() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Animal", class: Animal.self) {
                .attribute("name", .string)
            }
            EntityDescription("Robot", parent: "Animal") {
                .attribute("serial", .integer64)
            }
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Animal").setValue("cat", forKey: "name")
            try context.insertNewObject(forEntityName: "Robot").setValue("unit", forKey: "name")
            try context.save()

            XCTAssertThrowsError(try context.fetch(FetchRequest<Animal>(entityName: "Animal"))) { error in
                XCTAssertEqual((error as? FetchError)?.code, .wrongResultType)
                XCTAssertTrue("\(error)".contains("sub-entity Robot"), "\(error)")
            }
            var onlyAnimals = FetchRequest<Animal>(entityName: "Animal")
            onlyAnimals.includesSubentities = false
            XCTAssertEqual(try context.fetch(onlyAnimals).map(\.name), ["cat"])
            XCTAssertEqual(try context.fetch(FetchRequest<ManagedObject>(entityName: "Animal")).count, 2)
        }
    }
}
