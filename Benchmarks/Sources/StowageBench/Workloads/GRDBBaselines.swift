import Foundation
import GRDB

/// The GRDB side: SQLite in memory, used well (one transaction, prepared statements).
enum GRDBBaselines {
    static let createTable = """
        CREATE TABLE quake (id INTEGER PRIMARY KEY, magnitude REAL NOT NULL, place TEXT NOT NULL, time REAL)
        """

    /// An in-memory database with the empty quake table.
    static func makeDatabase() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: createTable) }
        return queue
    }

    /// Inserts every quake in one transaction through one prepared statement.
    static func insert(_ data: QuakeData, into queue: DatabaseQueue) throws {
        try queue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO quake (magnitude, place, time) VALUES (?, ?, ?)")
            for row in data.quakes {
                statement.setUncheckedArguments([row.magnitude, row.place, row.time.timeIntervalSince1970])
                try statement.execute()
            }
        }
    }

    /// Timed: insert of every quake into a new, empty database (created untimed).
    static func insertSave(_ data: QuakeData) throws -> Duration {
        let queue = try makeDatabase()
        return try measure { try insert(data, into: queue) }
    }

    /// Timed: `magnitude > 5` sorted by time descending, every column decoded into a value.
    static func fetchPredicateSort(from queue: DatabaseQueue, expecting expected: Int) throws -> Duration {
        var found = 0
        let elapsed = try measure {
            let quakes = try queue.read { db in
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT id, magnitude, place, time FROM quake WHERE magnitude > ? ORDER BY time DESC",
                    arguments: [QuakeData.magnitudeThreshold])
                var quakes: [QuakeData.Quake] = []
                while let row = try rows.next() {
                    let time: Double? = row[3]
                    quakes.append(QuakeData.Quake(magnitude: row[1], place: row[2], time: Date(timeIntervalSince1970: time ?? 0)))
                }
                return quakes
            }
            var checksum = 0.0
            for quake in quakes {
                checksum += quake.magnitude + Double(quake.place.utf8.count) + quake.time.timeIntervalSince1970
            }
            found = quakes.count
            consume((quakes.count, checksum))
        }
        guard found == expected else { throw BenchmarkError.wrongResultCount(found: found, expected: expected) }
        return elapsed
    }

    /// Timed: `count` in-memory database queues, all kept alive to the end.
    static func createQueues(_ count: Int) throws -> Duration {
        var queues: [DatabaseQueue] = []
        queues.reserveCapacity(count)
        let elapsed = try measure {
            for _ in 0..<count { queues.append(try DatabaseQueue()) }
        }
        consume(queues)
        return elapsed
    }
}

extension GRDBBaselines {
    /// Timed: SQLite's own parser preparing the equivalent five-clause SELECT, as often as the
    /// predicate is parsed (no statement cache).
    static func prepare(_ sql: String, count: Int) throws -> Duration {
        let queue = try makeDatabase()
        try queue.write { try $0.execute(sql: "ALTER TABLE quake ADD COLUMN depth INTEGER") }
        return try queue.read { db in
            try measure {
                for _ in 0..<count { consume(try db.makeStatement(sql: sql)) }
            }
        }
    }
}
