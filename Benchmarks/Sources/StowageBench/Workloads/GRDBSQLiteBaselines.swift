import Foundation
import GRDB

/// A row as GRDB's records see it: `Codable`, fetched and persisted by GRDB's generated code.
/// Dates are stored as seconds since 1970, so the table is the raw baseline's.
struct TremorRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tremor"

    var id: Int64?
    var magnitude: Double
    var depth: Double
    var latitude: Double
    var longitude: Double
    var time: Date
    var place: String
    var code: String
    var status: String
    var significance: Int64
    var tsunami: Bool

    init(_ row: TremorRow) {
        id = nil
        magnitude = row.magnitude
        depth = row.depth
        latitude = row.latitude
        longitude = row.longitude
        time = Date(timeIntervalSince1970: row.time)
        place = row.place
        code = row.code
        status = row.status
        significance = row.significance
        tsunami = row.tsunami
    }

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

    func add(to checksum: inout TremorChecksum) {
        checksum.add(
            magnitude: magnitude, depth: depth, latitude: latitude, longitude: longitude, time: time.timeIntervalSince1970,
            place: place, code: code, status: status, significance: significance, tsunami: tsunami)
    }
}

/// GRDB.swift, the best Swift peer, used as its documentation recommends for a file database:
/// a `DatabasePool` (WAL, `synchronous = NORMAL`), Codable records, one write transaction.
enum GRDBSQLiteBaselines {
    /// Timed: every row inserted as a record (`insert(db)`) in one `write` (pool and table
    /// created untimed), then read back and checked.
    static func insertSave(_ rows: [TremorRow], expected: TremorChecksum) throws -> Duration {
        let directory = try Scratch.makeDirectory("insert-grdb")
        defer { Scratch.remove(directory) }
        let path = directory.appendingPathComponent("tremors.sqlite").path
        let elapsed = try {
            let pool = try DatabasePool(path: path)
            try pool.write { try $0.execute(sql: RawSQLiteBaselines.createTable) }
            return try measure {
                try pool.write { db in
                    for row in rows { try TremorRecord(row).insert(db) }
                }
            }
        }()
        try RawSQLiteBaselines.checksum(path: path, layout: .plain).check(against: expected, "grdb insert")
        return elapsed
    }

    /// Timed: `fetchAll` of every record from a new pool, then every field of each read.
    static func fetchAll(from path: String, expected: TremorChecksum) throws -> Duration {
        let pool = try DatabasePool(path: path)
        var checksum = TremorChecksum()
        let elapsed = try measure {
            let records = try pool.read { try TremorRecord.fetchAll($0) }
            for record in records { record.add(to: &checksum) }
        }
        try checksum.check(against: expected, "grdb fetch")
        return elapsed
    }

    /// Timed: the indexed query `QueryExpectation.repetitions` times, each in its own `read`,
    /// through the connection's cached statement.
    static func indexedQuery(from path: String, expected: QueryExpectation) throws -> Duration {
        let pool = try DatabasePool(path: path)
        var found = QueryExpectation.Found()
        let arguments: StatementArguments = [QueryExpectation.magnitude, QueryExpectation.time, QueryExpectation.limit]
        let elapsed = try measure {
            for _ in 0..<QueryExpectation.repetitions {
                let records = try pool.read { db in
                    try TremorRecord.fetchAll(db.cachedStatement(sql: QueryExpectation.sql), arguments: arguments)
                }
                found.add(count: records.count)
                for record in records { found.add(magnitude: record.magnitude, time: record.time.timeIntervalSince1970) }
            }
        }
        try expected.check(found, "grdb indexed query")
        return elapsed
    }
}
