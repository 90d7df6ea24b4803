import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// Fetch indexes from the model: binary, compound, descending, R-tree kept in step by triggers.
final class SQLiteIndexTests: XCTestCase {
    static func placesModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Place", indexes: [
                FetchIndexDescription(name: "byLocation", elements: [.init("latitude"), .init("longitude")], kind: .rTree),
                FetchIndexDescription(name: "byNameAndRank", elements: [.init("name"), .init("rank", ascending: false)]),
            ]) {
                .attribute("name", .string)
                .attribute("rank", .integer64)
                .attribute("latitude", .double)
                .attribute("longitude", .double)
            }
        }
    }

    /// Saves places as (name, latitude, longitude) and returns their IDs by name.
    @discardableResult
    static func savePlaces(_ places: [(String, Double?, Double?)], in container: PersistentContainer) throws -> [String: ManagedObjectID] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            var ids: [String: ManagedObjectID] = [:]
            var objects: [(String, ManagedObject)] = []
            for (name, latitude, longitude) in places {
                let place = try context.insertNewObject(forEntityName: "Place")
                try place.setValue(name, forKey: "name")
                try place.setValue(latitude, forKey: "latitude")
                try place.setValue(longitude, forKey: "longitude")
                objects.append((name, place))
            }
            try context.save()
            for (name, object) in objects { ids[name] = object.objectID }
            return ids
        }
    }

    func testBinaryAndRTreeIndexesAreCreatedAndKeptInStep() throws {
        let stack = try SQLiteTestStore(try Self.placesModel())
        let ids = try Self.savePlaces([("Beijing", 39.9, 116.4), ("Paris", 48.9, 2.35), ("Nowhere", nil, nil)], in: stack.container)
        let definition = try stack.column("SELECT sql FROM sqlite_master WHERE name = 'Z_Place_byNameAndRank'")
        XCTAssertEqual(definition, [.text("CREATE INDEX \"Z_Place_byNameAndRank\" ON ZPLACE (ZNAME COLLATE BINARY ASC, ZRANK COLLATE BINARY DESC)")])
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM \"Z_Place_byLocation\""), [.integer(2)], "rows without coordinates are not in the R-tree")
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            let paris = try context.existingObject(with: try XCTUnwrap(ids["Paris"]))
            try paris.setValue(-33.9, forKey: "latitude")
            context.delete(try context.existingObject(with: try XCTUnwrap(ids["Beijing"])))
            try context.save()
        }
        let bounds = try stack.column("SELECT ZLATITUDE_MIN FROM \"Z_Place_byLocation\"")
        XCTAssertEqual(bounds.count, 1, "the deleted row left the R-tree")
        if case .real(let minimum)? = bounds.first { XCTAssertEqual(minimum, -33.9, accuracy: 0.001, "the update moved the entry") }
    }

    func testRTreeQueryReturnsTheRightRowsThroughTheVirtualTable() throws {
        let stack = try SQLiteTestStore(try Self.placesModel())
        try Self.savePlaces([
            ("Beijing", 39.9, 116.4), ("Chengdu", 30.7, 104.1), ("Paris", 48.9, 2.35), ("Sydney", -33.9, 151.2), ("Nowhere", nil, nil),
        ], in: stack.container)
        var request = FetchRequest<ManagedObject>(entityName: "Place")
        request.predicate = try .format(#"indexed:by:(latitude, "byLocation") BETWEEN {18, 54} AND indexed:by:(longitude, "byLocation") BETWEEN {73, 135}"#)
        request.sortDescriptors = [.ascending("name")]
        let context = stack.container.newBackgroundContext()
        let names = try context.performAndWait { try context.fetch(request).map { try $0.value(forKey: "name") as? String } }
        XCTAssertEqual(names, ["Beijing", "Chengdu"])

        let store = try stack.store
        let query = try store.compiler.selectObjects(request.storeRequest, columns: ["t0.Z_PK"])
        let connection = try SQLiteConnection(path: stack.url.path, mode: .readOnly, log: .disabled)
        var plan: [String] = []
        try connection.query("EXPLAIN QUERY PLAN " + query.sql, query.bindings) { plan.append($0.string(at: 3) ?? "") }
        XCTAssertTrue(plan.contains { $0.contains("Z_Place_byLocation") && $0.contains("VIRTUAL TABLE") }, "\(plan)")
    }
}
