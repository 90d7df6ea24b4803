import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Dictionary results: columns, group-by with aggregates, having, distinct.
final class DictionaryFetchTests: XCTestCase {
    private func quakes() throws -> ManagedObjectContext {
        let model = try ManagedObjectModel {
            EntityDescription("Quake") {
                .attribute("place", .string)
                .attribute("magnitude", .double)
                .attribute("day", .string)
                .attribute("depth", .integer32)
            }
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            let rows: [(String, Double, String, Int)] = [
                ("Tokyo", 4.0, "2026-11-01", 10), ("Tokyo", 6.0, "2026-11-01", 30), ("Lima", 5.0, "2026-11-02", 20),
                ("Tokyo", 5.0, "2026-11-02", 10), ("Quito", 2.0, "2026-11-03", 5),
            ]
            for (place, magnitude, day, depth) in rows {
                let quake = try context.insertNewObject(forEntityName: "Quake")
                try quake.setValue(place, forKey: "place")
                try quake.setValue(magnitude, forKey: "magnitude")
                try quake.setValue(day, forKey: "day")
                try quake.setValue(depth, forKey: "depth")
            }
            try context.save()
        }
        return context
    }

    private func aggregate(_ name: String, _ function: String, _ key: String, as type: AttributeType? = nil) -> PropertyToFetch {
        .expression(ExpressionDescription(name: name, expression: .function(function, [.keyPath(key)]), resultType: type))
    }

    func testAverageMagnitudeGroupedByPlace() throws {
        let context = try quakes()
        try context.performAndWait {
            var request = FetchRequest<FetchedDictionary>(entityName: "Quake")
            request.propertiesToFetch = ["place", aggregate("average", "average:", "magnitude"), aggregate("strongest", "max:", "magnitude")]
            request.propertiesToGroupBy = ["place"]
            request.sortDescriptors = [.ascending("place")]
            let rows = try context.fetch(request)
            XCTAssertEqual(rows, [
                ["place": "Lima", "average": 5.0, "strongest": 5.0],
                ["place": "Quito", "average": 2.0, "strongest": 2.0],
                ["place": "Tokyo", "average": 5.0, "strongest": 6.0],
            ])
        }
    }

    func testCountPerDayWithHavingAndSum() throws {
        let context = try quakes()
        try context.performAndWait {
            var request = FetchRequest<FetchedDictionary>(entityName: "Quake")
            request.propertiesToFetch = ["day", aggregate("count", "count:", "day"), aggregate("totalDepth", "sum:", "depth")]
            request.propertiesToGroupBy = ["day"]
            request.sortDescriptors = [.ascending("day")]
            request.havingPredicate = .comparison(StoreComparison(.keyPath("count"), .greaterThan, .constant(1)))
            XCTAssertEqual(try context.fetch(request), [
                ["day": "2026-11-01", "count": 2, "totalDepth": 40],
                ["day": "2026-11-02", "count": 2, "totalDepth": 30],
            ])
        }
    }

    func testColumnsDistinctAndWholeTableAggregates() throws {
        let context = try quakes()
        try context.performAndWait {
            var places = FetchRequest<FetchedDictionary>(entityName: "Quake")
            places.propertiesToFetch = ["place"]
            places.returnsDistinctResults = true
            places.sortDescriptors = [.descending("place")]
            XCTAssertEqual(try context.fetch(places).compactMap { $0["place"] }, ["Tokyo", "Quito", "Lima"])

            var stats = FetchRequest<FetchedDictionary>(entityName: "Quake")
            stats.propertiesToFetch = [aggregate("median", "median:", "magnitude"), aggregate("n", "count:", "place"), aggregate("mode", "mode:", "place")]
            XCTAssertEqual(try context.fetch(stats), [["median": 5.0, "n": 5, "mode": "Tokyo"]])

            var all = FetchRequest<FetchedDictionary>(entityName: "Quake")
            all.fetchLimit = 1
            all.sortDescriptors = [.descending("magnitude")]
            XCTAssertEqual(try context.fetch(all), [["place": "Tokyo", "magnitude": 6.0, "day": "2026-11-01", "depth": 30]])

            var bad = FetchRequest<FetchedDictionary>(entityName: "Quake")
            bad.propertiesToFetch = ["nope"]
            XCTAssertThrowsError(try context.fetch(bad)) { error in
                XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
            }
        }
    }

    func testChildContextsForwardDictionaryFetches() throws {
        let parent = try quakes()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            var request = FetchRequest<FetchedDictionary>(entityName: "Quake")
            request.propertiesToFetch = [aggregate("n", "count:", "place")]
            XCTAssertEqual(try child.fetch(request), [["n": 5]])
        }
    }
}

extension DictionaryFetchTests {
    /// The seed query: posts in the last 30 days, grouped by day, with a count per day.
    func testPostsInTheLastThirtyDaysGroupedByDay() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Post") {
                .attribute("createdAt", .date)
                .attribute("day", .string)
            }
        }
        let context = try TestStack.context(model)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try context.performAndWait {
            for daysAgo in [0, 0, 1, 29, 31, 45] {
                let post = try context.insertNewObject(forEntityName: "Post")
                let created = now.addingTimeInterval(-Double(daysAgo) * 86_400)
                try post.setValue(created, forKey: "createdAt")
                try post.setValue(created.formatted(.iso8601.year().month().day()), forKey: "day")
            }
            try context.save()
            var request = FetchRequest<FetchedDictionary>(entityName: "Post")
            request.predicate = try .format("createdAt > %@", now.addingTimeInterval(-30 * 86_400))
            request.propertiesToFetch = ["day", .expression(ExpressionDescription(name: "posts", expression: .function("count:", [.keyPath("day")]), resultType: .integer64))]
            request.propertiesToGroupBy = ["day"]
            request.sortDescriptors = [.descending("day")]
            let rows = try context.fetch(request)
            XCTAssertEqual(rows.map { $0["posts"] }, [.integer(2), .integer(1), .integer(1)])
            XCTAssertEqual(rows.count, 3, "posts older than 30 days are left out")
        }
    }
}
