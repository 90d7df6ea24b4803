import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Which Swift key paths a `#Predicate` or `SortDescriptor` may use: the model's typed
/// properties, also inherited by a subclass — never a computed property, even one that reads a
/// single attribute unchanged, unless it also writes it unchanged and nothing else; and a refused
/// key path is named as well as Linux allows.
final class TypedKeyPathTests: XCTestCase {
    class Book: ManagedObject {
        @Attribute var title: String
        @Attribute var pages: Int64
        var shout: String { title.uppercased() }
        var twice: Int64 { pages * 2 }
        var sameTitle: String { title }
        /// Reads and writes `title` unchanged: it is `title`.
        var heading: String {
            get { title }
            set { title = newValue }
        }
        /// Reads `title` unchanged but writes something else.
        var loud: String {
            get { title }
            set { title = newValue.uppercased() }
        }
        /// Reads `title` unchanged but writes `pages` too.
        var counted: String {
            get { title }
            set {
                title = newValue
                pages = Int64(newValue.count)
            }
        }
    }

    final class Novel: Book {
        var whisper: String { title.lowercased() }
        var negated: Int64 { -pages }
    }

    private func context() throws -> ManagedObjectContext {
        let model = try ManagedObjectModel {
            EntityDescription("Book", class: Book.self) {
                .attribute("title", .string, optional: false, defaultValue: "")
                .attribute("pages", .integer64, optional: false, defaultValue: 0)
            }
            EntityDescription("Novel", class: Novel.self, parent: "Book") {}
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            let book = try Book(context: context)
            book.title = "Dune"
            book.pages = 412
            let novel = try Novel(context: context)
            novel.title = "Emma"
            novel.pages = 474
            try context.save()
        }
        return context
    }

    /// The fetch's error message, or `nil` when it did not throw `untranslatablePredicate`.
    private func refusal<Root: ManagedObject>(_ request: FetchRequest<Root>, in context: ManagedObjectContext) -> String? {
        do {
            _ = try context.fetch(request)
            return nil
        } catch let error as FetchError where error.code == .untranslatablePredicate {
            return error.message
        } catch {
            return nil
        }
    }

    func testAComputedPropertyIsRefusedNotTranslatedIntoTheAttributeItReads() throws {
        let context = try context()
        try context.performAndWait {
            let shouted = refusal(FetchRequest<Book>(predicate: #Predicate { $0.shout == "DUNE" }), in: context)
            XCTAssertNotNil(shouted, "shout is not title: translating it as title finds no book")
            XCTAssertNotNil(refusal(FetchRequest<Book>(predicate: #Predicate { $0.twice > 800 }), in: context))
            XCTAssertNotNil(refusal(FetchRequest<Book>(predicate: nil, sortBy: [SortDescriptor(\.shout)]), in: context), "a sort too")
            XCTAssertThrowsError(try StorePredicate(#Predicate<Book> { $0.shout == "DUNE" }), "translating at once") { error in
                XCTAssertEqual((error as? FetchError)?.code, .untranslatablePredicate)
            }
            XCTAssertNotNil(refusal(FetchRequest<Book>(predicate: #Predicate { $0.sameTitle == "Dune" }), in: context), "even one that reads the attribute unchanged")
        }
    }

    /// An attribute's accessor does not report its key path (making it would cost every read), so
    /// a computed property is told from the attribute by what it does: one that reads and writes
    /// the attribute unchanged is the attribute; one that changes what it writes, or writes more,
    /// or cannot be written, is not.
    func testAComputedPropertyIsTheAttributeOnlyWhenItReadsAndWritesItUnchanged() throws {
        let context = try context()
        try context.performAndWait {
            XCTAssertEqual(try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.heading == "Dune" })).map(\.pages), [412])
            XCTAssertNotNil(refusal(FetchRequest<Book>(predicate: #Predicate { $0.loud == "Dune" }), in: context), "writes uppercased")
            XCTAssertNotNil(refusal(FetchRequest<Book>(predicate: #Predicate { $0.counted == "Dune" }), in: context), "writes pages too")
            XCTAssertNotNil(refusal(FetchRequest<Book>(predicate: #Predicate { $0.sameTitle == "Dune" }), in: context), "read-only")
            XCTAssertEqual(try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "Dune" })).map(\.pages), [412])
        }
    }

    func testASubclassReadsInheritedAttributesButNotItsComputedProperties() throws {
        let context = try context()
        try context.performAndWait {
            XCTAssertEqual(try context.fetch(FetchRequest<Novel>(predicate: #Predicate { $0.title == "Emma" })).map(\.pages), [474])
            XCTAssertEqual(try context.fetch(FetchRequest<Novel>(predicate: #Predicate { $0.pages > 400 }, sortBy: [SortDescriptor(\.title)])).count, 1)
            XCTAssertNotNil(refusal(FetchRequest<Novel>(predicate: #Predicate { $0.whisper == "emma" }), in: context), "lowercased title")
            XCTAssertNotNil(refusal(FetchRequest<Novel>(predicate: #Predicate { $0.negated < 0 }), in: context), "negated pages")
            XCTAssertNotNil(refusal(FetchRequest<Novel>(predicate: #Predicate { $0.shout == "EMMA" }), in: context), "inherited computed property")
        }
    }

    func testARefusedKeyPathIsNamedByItsTypesItsPlaceAndWhatItReads() throws {
        let context = try context()
        try context.performAndWait {
            let message = try XCTUnwrap(refusal(FetchRequest<Book>(predicate: #Predicate { $0.pages > 10 && $0.shout == "DUNE" }), in: context))
            XCTAssertTrue(message.contains("from Book to String"), message)
            XCTAssertTrue(message.contains("reads title but is not it"), message)
            XCTAssertTrue(message.contains("at Conjunction.rhs › Equal.lhs"), message)
            XCTAssertFalse(message.contains("0x"), "no address: \(message)")

            let counted = try XCTUnwrap(refusal(FetchRequest<Book>(predicate: #Predicate { $0.title.count > 3 }), in: context))
            XCTAssertTrue(counted.contains("from String to Int"), counted)
            XCTAssertTrue(counted.contains("not a ManagedObject subclass"), counted)
            XCTAssertTrue(counted.contains("at Comparison.lhs"), counted)

            let sorted = try XCTUnwrap(refusal(FetchRequest<Book>(predicate: nil, sortBy: [SortDescriptor(\.twice)]), in: context))
            XCTAssertTrue(sorted.hasPrefix("SortDescriptor: the key path from Book to Int64"), sorted)
            XCTAssertTrue(sorted.contains("reads pages"), sorted)

            let maximum = try XCTUnwrap(refusal(FetchRequest<Book>(predicate: #Predicate { $0.title.max() != nil }), in: context))
            XCTAssertTrue(maximum.contains("SequenceMaximum has no form in a store query (at NotEqual.lhs"), maximum)
        }
    }
}
