import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// A store is created, saved to, closed and opened again, and every kind of value and
/// relationship comes back.
final class SQLiteRoundTripTests: XCTestCase {
    func testEveryRelationshipKindSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.sqlite")
        var postID: ManagedObjectID?
        do {
            let container = try TestStack.sqliteContainer(at: url)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let author = try Author(context: context)
                author.name = "ada"
                let post = try Post(context: context)
                post.title = "Misty Morning"
                post.views = 42
                post.image = Data([1, 2, 3])
                post.author = author
                for text in ["first", "second"] {
                    let comment = try Comment(context: context)
                    comment.text = text
                    comment.post = post
                }
                for name in ["fog", "hills"] {
                    let tag = try Tag(context: context)
                    tag.name = name
                    post.tags.insert(tag)
                }
                var photos: [Photo] = []
                for caption in ["c", "a", "b"] {
                    let photo = try Photo(context: context)
                    photo.caption = caption
                    photos.append(photo)
                }
                post.photos = photos
                try context.save()
                postID = post.objectID
            }
        }
        let container = try TestStack.sqliteContainer(at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try XCTUnwrap(context.fetch(FetchRequest<Post>()).first)
            XCTAssertEqual(post.objectID, postID)
            XCTAssertEqual(post.title, "Misty Morning")
            XCTAssertEqual(post.views, 42)
            XCTAssertEqual(post.image, Data([1, 2, 3]))
            XCTAssertEqual(post.timestamp, Date(timeIntervalSinceReferenceDate: 0))
            XCTAssertEqual(post.author?.name, "ada")
            XCTAssertEqual(Set(post.comments.map(\.text)), ["first", "second"])
            XCTAssertEqual(Set(post.tags.map(\.name)), ["fog", "hills"])
            XCTAssertEqual(post.photos.map(\.caption), ["c", "a", "b"])
            XCTAssertEqual(post.tags.first?.posts.first?.objectID, postID)
            XCTAssertEqual(post.objectID.uriRepresentation.absoluteString.hasPrefix("x-coredata://"), true)
            XCTAssertEqual(try context.count(for: FetchRequest<Comment>()), 2)
        }
    }

    func testStringsKeepEveryCharacterIncludingNULAndEmptyStringsStayEmpty() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.sqlite")
        do {
            let container = try TestStack.sqliteContainer(at: url)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let author = try Author(context: context)
                author.name = "ada\0lovelace"
                author.emailAddress = ""
                try context.save()
            }
        }
        let context = try TestStack.sqliteContainer(at: url).newBackgroundContext()
        try context.performAndWait {
            let author = try XCTUnwrap(context.fetch(FetchRequest<Author>()).first)
            XCTAssertEqual(author.name, "ada\0lovelace", "the characters after NUL are kept")
            XCTAssertEqual(author.emailAddress, "", "an empty string is stored as one, not as NULL")
        }
    }

    func testDecimalsKeepEveryDigitAndStillCompareAsNumbers() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Decimals.sqlite")
        let values = ["12345678901234567890.123456789", "2.5", "-99999999999999999999.99999999999999999", "0.1"]
        do {
            let container = try TestStack.sqliteContainer(try EveryTypeGraph.makeModel(), at: url)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for (index, digits) in values.enumerated() {
                    let thing = try context.insertNewObject(forEntityName: "Thing")
                    try thing.setValue("t\(index)", forKey: "name")
                    try thing.setStoreValue(.decimal(try XCTUnwrap(Decimal(string: digits))), forKey: "decimal")
                }
                try context.save()
            }
        }
        let container = try TestStack.sqliteContainer(try EveryTypeGraph.makeModel(), at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Thing")
            request.sortDescriptors = [.ascending("decimal")]
            let sorted = try context.fetch(request).map { try $0.storeValue(forKey: "decimal") }
            XCTAssertEqual(sorted, [values[2], values[3], values[1], values[0]].map { .decimal(Decimal(string: $0)!) })
            request.predicate = try StorePredicate(format: "decimal > 100")
            XCTAssertEqual(try context.fetch(request).map { try $0.value(forKey: "name") as? String }, ["t0"])
        }
    }
}
