#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
@testable import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Fetch indexes on PostgreSQL: B-tree, partial (its predicate written as SQL with inlined
/// constants), R-tree (a B-tree over its columns) and uniqueness constraints are created with the
/// store, and queries through them answer as without them.
final class PostgresIndexTests: XCTestCase {
    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription(
                "Place", uniquenessConstraints: [["code"]],
                indexes: [
                    FetchIndexDescription(name: "byName", elements: [.init("name", ascending: false)]),
                    FetchIndexDescription(name: "popular", elements: [.init("name")], partialIndexPredicate: "name != nil AND visits >= 10 AND name != \"it's\""),
                    FetchIndexDescription(name: "byLocation", elements: [.init("latitude"), .init("longitude")], kind: .rTree),
                ]
            ) {
                .attribute("code", .string)
                .attribute("name", .string)
                .attribute("visits", .integer64, optional: false, defaultValue: 0)
                .attribute("latitude", .double, optional: false, defaultValue: 0.0)
                .attribute("longitude", .double, optional: false, defaultValue: 0.0)
            }
        }
    }

    func testEveryKindOfIndexIsCreatedAndQueriesThroughThemAnswer() throws {
        PostgresStore.register()
        let container = PersistentContainer(name: "Places", managedObjectModel: try model())
        container.persistentStoreDescriptions = [try PostgresTestServer.description(schema: PostgresTestServer.freshSchema("idx"))]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (code, name, visits, latitude, longitude) in [("OSL", "Oslo", 12, 59.9, 10.7), ("BER", "Berlin", 3, 52.5, 13.4), ("LIS", "Lisbon", 40, 38.7, -9.1)] {
                let place = try context.insertNewObject(forEntityName: "Place")
                try place.setValue(code, forKey: "code")
                try place.setValue(name, forKey: "name")
                try place.setValue(Int64(visits), forKey: "visits")
                try place.setValue(latitude, forKey: "latitude")
                try place.setValue(longitude, forKey: "longitude")
            }
            try context.save()

            var inBox = FetchRequest<ManagedObject>(entityName: "Place")
            inBox.predicate = try StorePredicate(format: "indexed:by:(latitude, \"byLocation\") BETWEEN {50, 60} AND indexed:by:(longitude, \"byLocation\") BETWEEN {0, 20}")
            inBox.sortDescriptors = [.ascending("name")]
            XCTAssertEqual(try context.fetch(inBox).map { try $0.value(forKey: "name") as? String }, ["Berlin", "Oslo"])

            var popular = FetchRequest<ManagedObject>(entityName: "Place")
            popular.predicate = try StorePredicate(format: "visits >= 10")
            popular.sortDescriptors = [.descending("name")]
            XCTAssertEqual(try context.fetch(popular).map { try $0.value(forKey: "name") as? String }, ["Oslo", "Lisbon"])

            let duplicate = try context.insertNewObject(forEntityName: "Place")
            try duplicate.setValue("OSL", forKey: "code")
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual((error as? ObjectValidationError)?.code, .uniquenessConstraint, "\(error)")
            }
        }
        let indexes = try PostgresIndexTests.indexNames(schema: container)
        for name in ["Z_Place_byName", "Z_Place_popular", "Z_Place_byLocation", "Z_Place_UNIQUE_code"] {
            XCTAssertTrue(indexes.contains(name), "\(name) among \(indexes)")
        }
    }

    /// A fetch index serves the store's sorts in both directions: they put nil first ascending
    /// and last descending, and the index is built in that order, so the server walks it (one
    /// way or the other) instead of sorting every row.
    func testSortsInEitherDirectionWalkTheFetchIndex() throws {
        PostgresStore.register()
        let container = PersistentContainer(name: "Places", managedObjectModel: try model())
        container.persistentStoreDescriptions = [try PostgresTestServer.description(schema: PostgresTestServer.freshSchema("idxsort"))]
        try container.loadPersistentStores()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? PostgresStore)
        for ascending in [true, false] {
            var request = StoreFetchRequest(entityName: "Place", resultType: .managedObjectID)
            request.sortDescriptors = [StoreSortDescriptor(keyPath: "name", ascending: ascending)]
            request.fetchLimit = 1
            let query = try store.compiler.selectObjects(request, columns: ["t0.Z_PK"])
            let plan = try store.pool.withConnection { connection in
                try connection.transaction {
                    try connection.run("SET LOCAL enable_seqscan = off")
                    return try connection.query("EXPLAIN " + query.sql, query.bindings).compactMap { $0.text(at: 0) }.joined(separator: "\n")
                }
            }
            // (An incremental sort for the Z_PK tie-breaker on top of the index is fine; sorting all rows is not.)
            let sortsEveryRow = plan.split(separator: "\n").contains {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "->  ", with: "").hasPrefix("Sort  (")
            }
            XCTAssertTrue(plan.contains("Z_Place_byName"), "ascending \(ascending): \(plan)")
            XCTAssertFalse(sortsEveryRow, "ascending \(ascending): \(plan)")
        }
    }

    /// The names of the indexes in the store's schema, from the server's catalog.
    private static func indexNames(schema container: PersistentContainer) throws -> Set<String> {
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? PostgresStore)
        let rows = try store.pool.withConnection { try $0.query("SELECT indexname FROM pg_indexes WHERE schemaname = $1", [.text(store.schemaName)]) }
        return Set(rows.compactMap { $0.text(at: 0) })
    }
}
#endif
