import Foundation
import Stowage

/// The query-language workloads: parsing predicate strings, evaluating a predicate over a
/// million snapshots, and grouping a million snapshots — each next to plain Swift (or SQLite's
/// own parser) doing the same job, the in-memory physical limit.
enum QueryWorkloads {
    static let parseCount = 10_000
    static let snapshotCount = 1_000_000

    /// Five clauses, one argument: the shape of a real list-screen filter.
    static let fivePredicate = "magnitude > 2.5 AND place BEGINSWITH[c] 'cal' AND time > %@ AND depth BETWEEN {1, 50} AND NOT (place CONTAINS 'test')"
    static let fiveSQL = "SELECT * FROM quake WHERE magnitude > 2.5 AND place LIKE 'cal%' AND time > ? AND depth BETWEEN 1 AND 50 AND NOT (place LIKE '%test%')"
    static let since = Date(timeIntervalSince1970: 1_605_000_000)

    /// Timed: parse the five-clause predicate `parseCount` times.
    static func parse() throws -> Duration {
        try measure {
            for _ in 0..<parseCount { consume(try StorePredicate(format: fivePredicate, since)) }
        }
    }

    /// An in-memory store holding `snapshotCount` quakes, written straight through the store API.
    static func makeStore(_ data: QuakeData) throws -> any PersistentStore {
        let model = try ManagedObjectModel {
            EntityDescription("Quake") {
                .attribute("magnitude", .double)
                .attribute("place", .string)
                .attribute("time", .date)
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(type: .inMemory))
        let ids = try store.newObjectIDs(forEntityNames: Array(repeating: "Quake", count: data.quakes.count))
        var changes = StoreChangeSet()
        let entity = try model.entity(named: "Quake")
        changes.inserted = try zip(ids, data.quakes).map { id, quake in
            try StoreSnapshot(objectID: id, version: 0, entity: entity, values: [
                "magnitude": .double(quake.magnitude), "place": .string(quake.place), "time": .date(quake.time),
            ])
        }
        try store.save(changes)
        return store
    }

    static let threeClauses = "magnitude > 5 AND place CONTAINS 'Japan' AND time > %@"

    /// Timed: count the snapshots matching a three-clause predicate.
    static func evaluate(_ store: any PersistentStore, expecting expected: Int) throws -> Duration {
        var request = StoreFetchRequest(entityName: "Quake", resultType: .count)
        request.predicate = try StorePredicate(format: threeClauses, since)
        var found = 0
        let elapsed = try measure {
            guard case .count(let n) = try store.execute(request) else { return }
            found = n
        }
        guard found == expected else { throw BenchmarkError.wrongResultCount(found: found, expected: expected) }
        return elapsed
    }

    static func evaluateBaseline(_ data: QuakeData, expecting expected: Int) throws -> Duration {
        var found = 0
        let elapsed = measure {
            found = data.quakes.count { $0.magnitude > 5 && $0.place.contains("Japan") && $0.time > since }
        }
        guard found == expected else { throw BenchmarkError.wrongResultCount(found: found, expected: expected) }
        return elapsed
    }

    /// Timed: group by place with the count and average magnitude of each group.
    static func groupBy(_ store: any PersistentStore, expectingGroups expected: Int) throws -> Duration {
        var request = StoreFetchRequest(entityName: "Quake", resultType: .dictionary)
        request.propertiesToFetch = [
            "place",
            .expression(ExpressionDescription(name: "count", expression: .function("count:", [.keyPath("place")]))),
            .expression(ExpressionDescription(name: "average", expression: .function("average:", [.keyPath("magnitude")]))),
        ]
        request.propertiesToGroupBy = ["place"]
        var groups = 0
        let elapsed = try measure {
            guard case .dictionaries(let rows) = try store.execute(request) else { return }
            groups = rows.count
        }
        guard groups == expected else { throw BenchmarkError.wrongResultCount(found: groups, expected: expected) }
        return elapsed
    }

    static func groupByBaseline(_ data: QuakeData, expectingGroups expected: Int) throws -> Duration {
        var groups = 0
        let elapsed = measure {
            var totals: [String: (count: Int, sum: Double)] = [:]
            for quake in data.quakes {
                totals[quake.place, default: (0, 0)].count += 1
                totals[quake.place, default: (0, 0)].sum += quake.magnitude
            }
            let rows = totals.map { (place: $0.key, count: $0.value.count, average: $0.value.sum / Double($0.value.count)) }
            groups = rows.count
            consume(rows)
        }
        guard groups == expected else { throw BenchmarkError.wrongResultCount(found: groups, expected: expected) }
        return elapsed
    }
}
