import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// Dictionary results decoded into `Decodable` structs, and read as Swift values by key.
final class TypedResultsTests: XCTestCase {
    struct PostSummary: Decodable, Sendable, Equatable {
        enum Mood: String, Decodable, Sendable { case calm, busy }
        let title: String
        let views: Int
        let timestamp: Date?
        let mood: Mood
    }

    private func context() throws -> ManagedObjectContext {
        let container = try TestStack.container(BlogModel.make())
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (title, views) in [("calm", 3), ("busy", 40)] {
                let post = try Post(context: context)
                post.title = title
                post.views = Int64(views)
                post.timestamp = nil
            }
            try context.save()
        }
        return context
    }

    func testDictionaryResultsDecodeIntoStructs() throws {
        let context = try context()
        var request = FetchRequest<FetchedDictionary>(entityName: "Post")
        request.propertiesToFetch = ["title", "views", "timestamp", .expression(.init(name: "mood", expression: .keyPath("title")))]
        request.sortDescriptors = [.ascending("views")]
        let summaries = try context.performAndWait { try context.fetch(request, as: PostSummary.self) }
        XCTAssertEqual(summaries, [
            PostSummary(title: "calm", views: 3, timestamp: nil, mood: .calm),
            PostSummary(title: "busy", views: 40, timestamp: nil, mood: .busy),
        ])
        let rows = try context.performAndWait { try context.fetch(request) }
        XCTAssertEqual(rows.first?.value("views", as: Int.self), 3)
        XCTAssertEqual(rows.first?.value("title", as: String.self), "calm")
        XCTAssertNil(rows.first?.value("timestamp", as: Date.self), "a null reads as nil")
        XCTAssertNil(rows.first?.value("title", as: Int.self), "a value of another kind reads as nil")
    }

    func testAMismatchNamesTheKey() throws {
        struct Wrong: Decodable { let title: Int }
        struct Missing: Decodable { let nothing: String }
        let context = try context()
        var request = FetchRequest<FetchedDictionary>(entityName: "Post")
        request.propertiesToFetch = ["title"]
        try context.performAndWait {
            XCTAssertThrowsError(try context.fetch(request, as: Wrong.self)) { error in
                guard case DecodingError.typeMismatch(_, let details)? = error as? DecodingError else { return XCTFail("\(error)") }
                XCTAssertEqual(details.codingPath.map(\.stringValue), ["title"])
            }
            XCTAssertThrowsError(try context.fetch(request, as: Missing.self)) { error in
                guard case DecodingError.keyNotFound(let key, _)? = error as? DecodingError else { return XCTFail("\(error)") }
                XCTAssertEqual(key.stringValue, "nothing")
            }
        }
    }

    func testHistoryTombstonesDecodeIntoStructs() throws {
        struct DeletedQuake: Decodable, Sendable, Equatable { let code: String; let depth: Int? }
        let directory = try TemporaryDirectory()
        let container = try TestStack.sqliteContainer(QuakeModel.make(), at: directory.url.appendingPathComponent("Q.sqlite")) {
            $0.setOption(true, forKey: .persistentHistoryTracking)
        }
        let context = container.newBackgroundContext()
        let decoded = try context.performAndWait { () throws -> [DeletedQuake] in
            let quake = try context.insertNewObject(forEntityName: "Quake")
            try quake.setValue("q7", forKey: "code")
            try quake.setValue(12, forKey: "depth")
            try context.save()
            context.delete(quake)
            try context.save()
            let changes = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions?.flatMap { $0.changes ?? [] } ?? []
            XCTAssertNil(try changes.first { $0.changeType == .insert }?.tombstone(as: DeletedQuake.self), "no tombstone for an insert")
            return try changes.compactMap { try $0.tombstone(as: DeletedQuake.self) }
        }
        XCTAssertEqual(decoded, [DeletedQuake(code: "q7", depth: 12)])
    }
}
