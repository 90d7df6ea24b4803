import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Typed properties whose names differ from their keys (`@Attribute("time") var occurredAt`).
final class Logbook: ManagedObject {
    @Attribute("title") var heading: String?
    @Relationship("entries") var pages: Set<LogEntry>
}

final class LogEntry: ManagedObject {
    @Attribute("time") var occurredAt: Date?
    @Attribute("title") var caption: String?
    @Attribute var note: String?
    @Relationship("book") var logbook: Logbook?
}

final class ExplicitKeyTests: XCTestCase {
    func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Logbook", class: Logbook.self) {
                .attribute("title", .string)
                .toMany("entries", destination: "LogEntry", inverse: "book")
            }
            EntityDescription("LogEntry", class: LogEntry.self) {
                .attribute("time", .date)
                .attribute("title", .string)
                .attribute("note", .string)
                .toOne("book", destination: "Logbook", inverse: "entries")
            }
        }
    }

    func testTypedPropertiesWithExplicitKeysReadAndWriteTheirOwnProperties() throws {
        let context = try TestStack.context(model())
        try context.performAndWait {
            let book = try Logbook(context: context)
            book.heading = "Voyage"
            let entry = try LogEntry(context: context)
            entry.occurredAt = Date(timeIntervalSinceReferenceDate: 60)
            entry.caption = "Landfall"
            entry.note = "calm"
            entry.logbook = book
            try context.save()

            XCTAssertEqual(try book.value(forKey: "title") as? String, "Voyage")
            XCTAssertEqual(try entry.value(forKey: "time") as? Date, Date(timeIntervalSinceReferenceDate: 60))
            XCTAssertEqual(try entry.value(forKey: "title") as? String, "Landfall", "the same key on two classes stays each one's own")
            XCTAssertEqual(try entry.value(forKey: "note") as? String, "calm")
            XCTAssertEqual(try entry.value(forKey: "book") as? ManagedObject, book)
            XCTAssertEqual(book.pages, [entry], "the inverse, through its explicit key")

            try book.setValue("Return", forKey: "title")
            XCTAssertEqual(book.heading, "Return")
            context.refreshAllObjects()
            let fetched = try XCTUnwrap(context.fetch(FetchRequest<LogEntry>()).first)
            XCTAssertEqual(fetched.caption, "Landfall")
            XCTAssertEqual(fetched.logbook?.heading, "Return")
        }
    }
}
