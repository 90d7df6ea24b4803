import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// A lookup of rows by a long list of values (``ValueListFetching``, a save's constraint check)
/// on a real SQLite file returns the rows an object fetch with the predicate `key IN {values…}`
/// returns — on text, integers and dates, for an entity and for a sub-entity sharing its table,
/// with values no row holds and values of a kind the key cannot hold.
final class SQLiteValueListLookupTests: XCTestCase {
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("code", .string)
                .attribute("count", .integer64)
                .attribute("taken", .date)
            }
            EntityDescription("SpecialItem", parent: "Item") {
                .attribute("grade", .integer16)
            }
        }
    }

    private static let start = Date(timeIntervalSinceReferenceDate: 700_000_000.25)

    /// A store of 400 items, every third one special: item `i` has code `c<i>`, count `i` and
    /// taken `start + i` minutes.
    private func makeStore() throws -> SQLiteTestStore {
        let test = try SQLiteTestStore(try Self.model())
        let context = test.container.newBackgroundContext()
        try context.performAndWait {
            for index in 0..<400 {
                let item = try context.insertNewObject(forEntityName: index % 3 == 0 ? "SpecialItem" : "Item")
                try item.setValue("c\(index)", forKey: "code")
                try item.setValue(index, forKey: "count")
                try item.setValue(Self.start.addingTimeInterval(Double(index) * 60), forKey: "taken")
            }
            try context.save()
        }
        return test
    }

    /// The IDs of the rows the lookup returns, and of those the equivalent fetch returns.
    private func rows(
        _ store: SQLiteStore, _ entity: String, _ key: String, _ values: [StoreValue]
    ) throws -> (lookup: [ManagedObjectID], fetch: [ManagedObjectID]) {
        let lookup = try store.snapshots(ofEntity: entity, whose: key, isAmong: values).map(\.objectID)
        var request = StoreFetchRequest(entityName: entity, resultType: .managedObject)
        request.predicate = .comparison(StoreComparison(.keyPath(key), .in, .aggregate(values.map(StoreExpression.constant))))
        guard case .snapshots(let fetched) = try store.execute(request) else {
            XCTFail("an object fetch returns snapshots")
            return (lookup, [])
        }
        return (lookup, fetched.map(\.objectID))
    }

    func testALongListFindsTheRowsTheFetchFinds() throws {
        let test = try makeStore()
        let store = try test.store
        let dates = (0..<450).map { StoreValue.date(Self.start.addingTimeInterval(Double($0) * 60)) }
        let cases: [(String, String, [StoreValue], expected: Int)] = [
            ("Item", "code", (0..<450).map { .string("c\($0)") }, 400),
            ("Item", "code", (0..<300).map { .string("c\($0 * 2)") } + [.integer(5)], 200),
            ("SpecialItem", "code", (0..<450).map { .string("c\($0)") }, 134),
            ("Item", "count", (0..<450).map { .integer(Int64($0) - 25) }, 400),
            ("SpecialItem", "count", (0..<200).map { .integer(Int64($0)) }, 67),
            ("Item", "taken", dates, 400),
            ("SpecialItem", "taken", dates, 134),
        ]
        for (entity, key, values, expected) in cases {
            let found = try rows(store, entity, key, values)
            XCTAssertEqual(found.lookup.count, found.fetch.count, "\(entity).\(key)")
            XCTAssertEqual(Set(found.lookup), Set(found.fetch), "\(entity).\(key)")
            XCTAssertEqual(found.fetch.count, expected, "\(entity).\(key)")
        }
    }
}
