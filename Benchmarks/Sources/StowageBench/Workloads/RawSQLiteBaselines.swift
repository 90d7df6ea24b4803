import Foundation
import GRDBSQLite

/// The raw SQLite C API used well — the physical limit for the SQLite store: a connection
/// opened with `SQLITE_OPEN_NOMUTEX`, WAL with `synchronous = NORMAL`, one transaction per
/// write, one prepared statement reused (bind, step, reset), columns read straight into
/// Swift values.
///
/// The table is what an application would write by hand for the same data:
/// `tremor(id INTEGER PRIMARY KEY, <ten columns>)`; dates are REAL seconds since 1970.
enum RawSQLiteBaselines {
    static let createTable = """
        CREATE TABLE tremor (id INTEGER PRIMARY KEY, magnitude REAL NOT NULL, depth REAL NOT NULL, \
        latitude REAL NOT NULL, longitude REAL NOT NULL, time REAL NOT NULL, place TEXT NOT NULL, \
        code TEXT NOT NULL, status TEXT NOT NULL, significance INTEGER NOT NULL, tsunami INTEGER NOT NULL)
        """
    static let createTimeIndex = "CREATE INDEX tremor_time ON tremor (time)"
    static let insertSQL = """
        INSERT INTO tremor (magnitude, depth, latitude, longitude, time, place, code, status, significance, tsunami) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let selectSQL = "SELECT id, magnitude, depth, latitude, longitude, time, place, code, status, significance, tsunami FROM tremor"

    /// A row read back, as an application's plain struct.
    struct Tremor {
        var id: Int64
        var row: TremorRow
    }

    /// The current row of a statement over `selectSQL`'s columns.
    @inline(__always)
    static func read(_ statement: RawStatement) -> Tremor {
        let s = statement.handle
        return Tremor(id: sqlite3_column_int64(s, 0), row: TremorRow(
            magnitude: sqlite3_column_double(s, 1), depth: sqlite3_column_double(s, 2),
            latitude: sqlite3_column_double(s, 3), longitude: sqlite3_column_double(s, 4),
            time: sqlite3_column_double(s, 5), place: statement.string(at: 6), code: statement.string(at: 7),
            status: statement.string(at: 8), significance: sqlite3_column_int64(s, 9), tsunami: sqlite3_column_int64(s, 10) != 0))
    }

    // MARK: Writing

    /// Inserts `rows` in one transaction through one prepared statement.
    static func insert(_ rows: some Sequence<TremorRow>, into database: RawDatabase) throws {
        try database.execute("BEGIN IMMEDIATE")
        let statement = try database.prepare(insertSQL)
        let s = statement.handle
        for row in rows {
            sqlite3_bind_double(s, 1, row.magnitude)
            sqlite3_bind_double(s, 2, row.depth)
            sqlite3_bind_double(s, 3, row.latitude)
            sqlite3_bind_double(s, 4, row.longitude)
            sqlite3_bind_double(s, 5, row.time)
            _ = statement.bind(row.place, at: 6)
            _ = statement.bind(row.code, at: 7)
            _ = statement.bind(row.status, at: 8)
            sqlite3_bind_int64(s, 9, row.significance)
            sqlite3_bind_int(s, 10, row.tsunami ? 1 : 0)
            let code = sqlite3_step(s)
            guard code == SQLITE_DONE else {
                try? database.execute("ROLLBACK")
                throw BenchmarkError.failed("insert: \(String(cString: sqlite3_errmsg(database.handle)))")
            }
            sqlite3_reset(s)
        }
        try database.execute("COMMIT")
    }

    /// A new database file at `path` holding `rows` (table, then rows, then the time index when
    /// asked for, as a bulk load would), checkpointed. Returns the magnitudes' sum.
    @discardableResult
    static func makeDatabase(path: String, rows: some Sequence<TremorRow>, timeIndex: Bool) throws -> MagnitudeSum {
        let database = try RawDatabase.openWAL(path: path)
        try database.execute(createTable)
        var sum = MagnitudeSum()
        try insert(rows.lazy.map { row in
            sum.add(row.magnitude)
            return row
        }, into: database)
        if timeIndex { try database.execute(createTimeIndex) }
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return sum
    }

    /// Timed: every row into a new file (connection opened and table created untimed), then
    /// read back and checked.
    static func insertSave(_ rows: [TremorRow], expected: TremorChecksum) throws -> Duration {
        let directory = try Scratch.makeDirectory("insert-raw")
        defer { Scratch.remove(directory) }
        let path = directory.appendingPathComponent("tremors.sqlite").path
        let elapsed = try {
            let database = try RawDatabase.openWAL(path: path)
            try database.execute(createTable)
            return try measure { try insert(rows, into: database) }
        }()
        try checksum(path: path, layout: .plain).check(against: expected, "raw insert")
        return elapsed
    }

    // MARK: Reading

    /// Timed: every row stepped into an array of structs, then every field of each read.
    static func fetchAll(from path: String, expected: TremorChecksum) throws -> Duration {
        let database = try RawDatabase.openWAL(path: path)
        var checksum = TremorChecksum()
        let elapsed = try measure {
            let statement = try database.prepare(selectSQL)
            var tremors: [Tremor] = []
            while true {
                let code = sqlite3_step(statement.handle)
                guard code == SQLITE_ROW else {
                    try database.check(code, "select", expected: SQLITE_DONE)
                    break
                }
                tremors.append(read(statement))
            }
            for tremor in tremors { checksum.add(tremor.row) }
        }
        try checksum.check(against: expected, "raw fetch")
        return elapsed
    }

    /// Timed: the indexed query `QueryExpectation.repetitions` times through one prepared
    /// statement (reset and rebound each time), each result stepped into structs.
    static func indexedQuery(from path: String, expected: QueryExpectation) throws -> Duration {
        let database = try RawDatabase.openWAL(path: path)
        var found = QueryExpectation.Found()
        let elapsed = try measure {
            let statement = try database.prepare(QueryExpectation.sql)
            let s = statement.handle
            for _ in 0..<QueryExpectation.repetitions {
                sqlite3_reset(s)
                sqlite3_bind_double(s, 1, QueryExpectation.magnitude)
                sqlite3_bind_double(s, 2, QueryExpectation.time)
                sqlite3_bind_int64(s, 3, Int64(QueryExpectation.limit))
                var tremors: [Tremor] = []
                while true {
                    let code = sqlite3_step(s)
                    guard code == SQLITE_ROW else {
                        try database.check(code, "indexed query", expected: SQLITE_DONE)
                        break
                    }
                    tremors.append(read(statement))
                }
                found.add(count: tremors.count)
                for tremor in tremors { found.add(magnitude: tremor.row.magnitude, time: tremor.row.time) }
            }
        }
        try expected.check(found, "raw indexed query")
        return elapsed
    }

    /// Timed: step through every row, each decoded into a struct that is dropped after its
    /// magnitude is read (memory stays flat).
    static func iterate(from path: String, expected: MagnitudeSum) throws -> Duration {
        let database = try RawDatabase.openWAL(path: path)
        var found = MagnitudeSum()
        let elapsed = try measure {
            let statement = try database.prepare(selectSQL)
            while true {
                let code = sqlite3_step(statement.handle)
                guard code == SQLITE_ROW else {
                    try database.check(code, "iterate", expected: SQLITE_DONE)
                    break
                }
                let tremor = read(statement)
                found.add(tremor.row.magnitude)
            }
        }
        try expected.check(found, "raw iteration")
        return elapsed
    }

    // MARK: Updating and deleting rows of a store file

    /// Timed: on a fresh copy of the 100,000-row store file (Core Data's layout), `BEGIN`, one
    /// prepared `UPDATE ZTREMOR SET ZMAGNITUDE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?` bound and
    /// stepped per row with the same new value as the Stowage side (`magnitude + 1`), `COMMIT`.
    /// The keys and current magnitudes are read untimed beforehand; the file is checked after.
    static func updateSave(store: URL, count: Int) throws -> Duration {
        let copy = try Scratch.copyDatabase(store, "update-raw")
        defer { Scratch.remove(copy.directory) }
        let path = copy.url.path
        let elapsed = try {
            let database = try RawDatabase.openWAL(path: path)
            var rows: [(key: Int64, magnitude: Double)] = []
            rows.reserveCapacity(count)
            let select = try database.prepare("SELECT Z_PK, ZMAGNITUDE FROM ZTREMOR")
            while true {
                let code = sqlite3_step(select.handle)
                guard code == SQLITE_ROW else {
                    try database.check(code, "read keys", expected: SQLITE_DONE)
                    break
                }
                rows.append((sqlite3_column_int64(select.handle, 0), sqlite3_column_double(select.handle, 1)))
            }
            guard rows.count == count else { throw BenchmarkError.wrongResultCount(found: rows.count, expected: count) }
            return try measure {
                try database.execute("BEGIN IMMEDIATE")
                let statement = try database.prepare("UPDATE ZTREMOR SET ZMAGNITUDE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
                let s = statement.handle
                for row in rows {
                    sqlite3_bind_double(s, 1, SQLiteStoreWorkloads.updated(magnitude: row.magnitude))
                    sqlite3_bind_int64(s, 2, row.key)
                    let code = sqlite3_step(s)
                    guard code == SQLITE_DONE else {
                        try? database.execute("ROLLBACK")
                        throw BenchmarkError.failed("update: \(String(cString: sqlite3_errmsg(database.handle)))")
                    }
                    sqlite3_reset(s)
                }
                try database.execute("COMMIT")
            }
        }()
        try checkUpdated(path: path, count: count, "raw update-save")
        return elapsed
    }

    /// Timed: on a fresh copy of the 100,000-row store file, `BEGIN`, one prepared
    /// `DELETE FROM ZTREMOR WHERE Z_PK = ?` bound and stepped for every key (read untimed
    /// beforehand), `COMMIT`. The table must then be empty.
    static func deleteSave(store: URL, count: Int) throws -> Duration {
        let copy = try Scratch.copyDatabase(store, "delete-raw")
        defer { Scratch.remove(copy.directory) }
        let path = copy.url.path
        let elapsed = try {
            let database = try RawDatabase.openWAL(path: path)
            var keys: [Int64] = []
            keys.reserveCapacity(count)
            let select = try database.prepare("SELECT Z_PK FROM ZTREMOR")
            while true {
                let code = sqlite3_step(select.handle)
                guard code == SQLITE_ROW else {
                    try database.check(code, "read keys", expected: SQLITE_DONE)
                    break
                }
                keys.append(sqlite3_column_int64(select.handle, 0))
            }
            guard keys.count == count else { throw BenchmarkError.wrongResultCount(found: keys.count, expected: count) }
            return try measure {
                try database.execute("BEGIN IMMEDIATE")
                let statement = try database.prepare("DELETE FROM ZTREMOR WHERE Z_PK = ?")
                let s = statement.handle
                for key in keys {
                    sqlite3_bind_int64(s, 1, key)
                    let code = sqlite3_step(s)
                    guard code == SQLITE_DONE else {
                        try? database.execute("ROLLBACK")
                        throw BenchmarkError.failed("delete: \(String(cString: sqlite3_errmsg(database.handle)))")
                    }
                    sqlite3_reset(s)
                }
                try database.execute("COMMIT")
            }
        }()
        try checkEmpty(path: path, "raw delete-save")
        return elapsed
    }

    /// Checks (untimed) that the store file at `path` holds rows 1 … `count` of
    /// ``fillStore(path:count:)``, each with `magnitude + 1` and `Z_OPT` 2 (the fill writes 1),
    /// every other column as filled.
    static func checkUpdated(path: String, count: Int, _ what: String) throws {
        let database = try RawDatabase(path: path)
        let statement = try database.prepare("""
            SELECT Z_PK, Z_OPT, ZMAGNITUDE, ZDEPTH, ZLATITUDE, ZLONGITUDE, ZTIME, ZPLACE, ZCODE, ZSTATUS, ZSIGNIFICANCE, ZTSUNAMI \
            FROM ZTREMOR
            """)
        let s = statement.handle
        var seen = [Bool](repeating: false, count: count)
        var rows = 0
        while true {
            let code = sqlite3_step(s)
            guard code == SQLITE_ROW else {
                try database.check(code, "check update", expected: SQLITE_DONE)
                break
            }
            rows += 1
            let key = sqlite3_column_int64(s, 0)
            guard (1...Int64(count)).contains(key), !seen[Int(key - 1)] else {
                throw BenchmarkError.wrongResult("\(what): unexpected row Z_PK \(key)")
            }
            seen[Int(key - 1)] = true
            let row = TremorData.row(Int(key - 1))
            let version = sqlite3_column_int64(s, 1)
            let magnitude = sqlite3_column_double(s, 2)
            guard version == 2, magnitude == SQLiteStoreWorkloads.updated(magnitude: row.magnitude) else {
                throw BenchmarkError.wrongResult(
                    "\(what): row \(key) has Z_OPT \(version), magnitude \(magnitude); expected 2, \(SQLiteStoreWorkloads.updated(magnitude: row.magnitude))")
            }
            guard sqlite3_column_double(s, 3) == row.depth, sqlite3_column_double(s, 4) == row.latitude,
                sqlite3_column_double(s, 5) == row.longitude,
                sqlite3_column_double(s, 6) == row.time - Date.timeIntervalBetween1970AndReferenceDate,
                statement.string(at: 7) == row.place, statement.string(at: 8) == row.code, statement.string(at: 9) == row.status,
                sqlite3_column_int64(s, 10) == row.significance, (sqlite3_column_int64(s, 11) != 0) == row.tsunami
            else {
                throw BenchmarkError.wrongResult("\(what): row \(key) changed in a column other than magnitude")
            }
        }
        guard rows == count else { throw BenchmarkError.wrongResultCount(found: rows, expected: count) }
    }

    /// Checks (untimed) that the store file at `path` has no Tremor row left.
    static func checkEmpty(path: String, _ what: String) throws {
        let database = try RawDatabase(path: path)
        let left = try database.integer("SELECT COUNT(*) FROM ZTREMOR")
        guard left == 0 else { throw BenchmarkError.wrongResult("\(what): \(left) rows left, expected none") }
    }

    // MARK: Checking and filling files

    /// Where the ten attributes live in a file.
    enum Layout {
        /// `tremor`, dates as seconds since 1970 (raw SQLite and GRDB).
        case plain
        /// `ZTREMOR`, dates as seconds since 2001 (the SQLite store, in Core Data's layout).
        case coreData

        var select: String {
            switch self {
            case .plain: "SELECT magnitude, depth, latitude, longitude, time, place, code, status, significance, tsunami FROM tremor"
            case .coreData: "SELECT ZMAGNITUDE, ZDEPTH, ZLATITUDE, ZLONGITUDE, ZTIME, ZPLACE, ZCODE, ZSTATUS, ZSIGNIFICANCE, ZTSUNAMI FROM ZTREMOR"
            }
        }

        /// Added to a stored date to get seconds since 1970.
        var timeOffset: Double {
            switch self {
            case .plain: 0
            case .coreData: Date.timeIntervalBetween1970AndReferenceDate
            }
        }
    }

    /// Every row of the file at `path`, read back (untimed) to check what a write left there.
    static func checksum(path: String, layout: Layout) throws -> TremorChecksum {
        let database = try RawDatabase(path: path)
        let statement = try database.prepare(layout.select)
        let s = statement.handle
        var checksum = TremorChecksum()
        while true {
            let code = sqlite3_step(s)
            guard code == SQLITE_ROW else {
                try database.check(code, "checksum", expected: SQLITE_DONE)
                break
            }
            checksum.add(
                magnitude: sqlite3_column_double(s, 0), depth: sqlite3_column_double(s, 1),
                latitude: sqlite3_column_double(s, 2), longitude: sqlite3_column_double(s, 3),
                time: sqlite3_column_double(s, 4) + layout.timeOffset, place: statement.string(at: 5),
                code: statement.string(at: 6), status: statement.string(at: 7),
                significance: sqlite3_column_int64(s, 8), tsunami: sqlite3_column_int64(s, 9) != 0)
        }
        return checksum
    }

    /// Fills the empty `ZTREMOR` table of a SQLite store file (created by the store, so its
    /// schema, indexes and R-tree triggers are the store's own) with `count` rows, the way the
    /// store writes them — so that populating a fixture with a million rows costs seconds and
    /// little memory. Returns the magnitudes' sum. The workloads that read the file check
    /// every value they get back.
    static func fillStore(path: String, count: Int) throws -> MagnitudeSum {
        let database = try RawDatabase.openWAL(path: path)
        let entity = try database.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tremor'")
        guard try database.integer("SELECT COUNT(*) FROM ZTREMOR") == 0 else { throw BenchmarkError.failed("\(path) is not empty") }
        try database.execute("BEGIN IMMEDIATE")
        let statement = try database.prepare("""
            INSERT INTO ZTREMOR (Z_PK, Z_ENT, Z_OPT, ZMAGNITUDE, ZDEPTH, ZLATITUDE, ZLONGITUDE, ZTIME, ZPLACE, ZCODE, ZSTATUS, ZSIGNIFICANCE, ZTSUNAMI) \
            VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let s = statement.handle
        var sum = MagnitudeSum()
        for index in 0..<count {
            let row = TremorData.row(index)
            sum.add(row.magnitude)
            sqlite3_bind_int64(s, 1, Int64(index + 1))
            sqlite3_bind_int64(s, 2, entity)
            sqlite3_bind_double(s, 3, row.magnitude)
            sqlite3_bind_double(s, 4, row.depth)
            sqlite3_bind_double(s, 5, row.latitude)
            sqlite3_bind_double(s, 6, row.longitude)
            sqlite3_bind_double(s, 7, row.time - Date.timeIntervalBetween1970AndReferenceDate)
            _ = statement.bind(row.place, at: 8)
            _ = statement.bind(row.code, at: 9)
            _ = statement.bind(row.status, at: 10)
            sqlite3_bind_int64(s, 11, row.significance)
            sqlite3_bind_int(s, 12, row.tsunami ? 1 : 0)
            try database.check(sqlite3_step(s), "fill store", expected: SQLITE_DONE)
            sqlite3_reset(s)
        }
        try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(entity); COMMIT")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return sum
    }
}
