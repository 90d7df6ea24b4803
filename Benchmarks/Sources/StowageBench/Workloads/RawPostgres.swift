import Foundation
import Logging
import PostgresNIO

/// The raw PostgreSQL baseline: postgres-nio's connection used directly, as a careful program
/// would — values bound as parameters, many rows per `INSERT` in one transaction, results
/// decoded column by column into structs. It waits for each answer on the calling thread, as
/// the store does.
enum RawPostgres {
    static let logger = Logger(label: "stowage-bench.postgres")

    /// A connection over the server's socket, its search path on `schema` when given.
    static func connect(schema: String? = nil) throws -> PostgresConnection {
        let url = try PostgresServer.url()
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let socket = components?.queryItems?.first { $0.name == "host" }?.value ?? "/tmp"
        let database = String(url.path.drop { $0 == "/" })
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: "\(socket)/.s.PGSQL.\(url.port ?? 5432)", username: url.user ?? "postgres", password: nil,
            database: database.isEmpty ? nil : database)
        let connection = try PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.next(), configuration: configuration, id: 1, logger: logger).wait()
        if let schema { _ = try connection.query("SET search_path TO \(unescaped: schema)", logger: logger).wait() }
        return connection
    }

    static let columns = "magnitude, depth, latitude, longitude, time, place, code, status, significance, tsunami"

    static func create(schema: String, indexed: Bool) throws {
        let connection = try connect()
        defer { connection.closeNow() }
        _ = try connection.query("CREATE SCHEMA \(unescaped: schema)", logger: logger).wait()
        _ = try connection.query("""
            CREATE TABLE \(unescaped: schema).tremor (id BIGINT PRIMARY KEY, magnitude DOUBLE PRECISION, depth DOUBLE PRECISION, \
            latitude DOUBLE PRECISION, longitude DOUBLE PRECISION, time DOUBLE PRECISION, place TEXT, code TEXT, status TEXT, \
            significance BIGINT, tsunami BIGINT)
            """, logger: logger).wait()
        if indexed { _ = try connection.query("CREATE INDEX ON \(unescaped: schema).tremor (time DESC)", logger: logger).wait() }
    }

    static func drop(_ schema: String) {
        guard let connection = try? connect() else { return }
        defer { connection.closeNow() }
        _ = try? connection.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: logger).wait()
    }

    static func analyze(_ schema: String) throws {
        let connection = try connect(schema: schema)
        defer { connection.closeNow() }
        _ = try connection.query("ANALYZE", logger: logger).wait()
    }

    /// Inserts `rows` in one transaction, 1,000 rows per statement (the store's chunk size).
    static func insert(_ rows: [TremorRow], schema: String, on connection: PostgresConnection) throws {
        _ = try connection.query("BEGIN", logger: logger).wait()
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + 1000, rows.count)]
            var binds = PostgresBindings(capacity: chunk.count * 11)
            var tuples: [String] = []
            tuples.reserveCapacity(chunk.count)
            for (offset, row) in chunk.enumerated() {
                let base = offset * 11
                tuples.append("(" + (1...11).map { "$\(base + $0)" }.joined(separator: ", ") + ")")
                binds.append(Int64(start + offset + 1))
                binds.append(row.magnitude)
                binds.append(row.depth)
                binds.append(row.latitude)
                binds.append(row.longitude)
                binds.append(row.time)
                binds.append(row.place)
                binds.append(row.code)
                binds.append(row.status)
                binds.append(row.significance)
                binds.append(Int64(row.tsunami ? 1 : 0))
            }
            let sql = "INSERT INTO \(schema).tremor (id, \(columns)) VALUES " + tuples.joined(separator: ", ")
            _ = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
            start += chunk.count
        }
        _ = try connection.query("COMMIT", logger: logger).wait()
    }

    /// Timed: the rows inserted into a new table (created untimed), then read back and checked.
    static func insertSave(_ rows: [TremorRow], expected: TremorChecksum) throws -> Duration {
        let schema = PostgresWorkloads.freshSchema("raw_insert")
        defer { drop(schema) }
        try create(schema: schema, indexed: false)
        let connection = try connect()
        defer { connection.closeNow() }
        let elapsed = try measure { try insert(rows, schema: schema, on: connection) }
        try checksum(schema: schema, layout: .plain).check(against: expected, "raw postgres insert")
        return elapsed
    }

    enum Layout { case plain, coreData }

    /// Every row of a table read back and summed.
    static func checksum(schema: String, layout: Layout) throws -> TremorChecksum {
        let connection = try connect(schema: schema)
        defer { connection.closeNow() }
        let sql = layout == .plain
            ? "SELECT \(columns) FROM tremor"
            : "SELECT ZMAGNITUDE, ZDEPTH, ZLATITUDE, ZLONGITUDE, ZTIME + 978307200, ZPLACE, ZCODE, ZSTATUS, ZSIGNIFICANCE, ZTSUNAMI FROM ZTREMOR"
        var checksum = TremorChecksum()
        for row in try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait().rows {
            checksum.add(try decode(row.makeRandomAccess(), from: 0))
        }
        return checksum
    }

    @inline(__always)
    static func decode(_ row: PostgresRandomAccessRow, from first: Int) throws -> TremorRow {
        TremorRow(
            magnitude: try row[first].decode(Double.self), depth: try row[first + 1].decode(Double.self),
            latitude: try row[first + 2].decode(Double.self), longitude: try row[first + 3].decode(Double.self),
            time: try row[first + 4].decode(Double.self), place: try row[first + 5].decode(String.self),
            code: try row[first + 6].decode(String.self), status: try row[first + 7].decode(String.self),
            significance: try row[first + 8].decode(Int64.self), tsunami: try row[first + 9].decode(Int64.self) != 0)
    }

    /// Timed: every row decoded into a struct, then every field read.
    static func fetchAll(schema: String, expected: TremorChecksum) throws -> Duration {
        let connection = try connect(schema: schema)
        defer { connection.closeNow() }
        var checksum = TremorChecksum()
        let elapsed = try measure {
            let result = try connection.query(PostgresQuery(unsafeSQL: "SELECT id, \(columns) FROM tremor"), logger: logger).wait()
            var tremors: [TremorRow] = []
            tremors.reserveCapacity(result.rows.count)
            for row in result.rows { tremors.append(try decode(row.makeRandomAccess(), from: 1)) }
            for tremor in tremors { checksum.add(tremor) }
        }
        try checksum.check(against: expected, "raw postgres fetch")
        return elapsed
    }

    /// Timed: the indexed query, 1,000 times, values bound, rows decoded into structs.
    static func indexedQuery(schema: String, expected: QueryExpectation) throws -> Duration {
        let connection = try connect(schema: schema)
        defer { connection.closeNow() }
        let sql = "SELECT id, \(columns) FROM tremor WHERE magnitude > $1 AND time > $2 ORDER BY time DESC LIMIT $3"
        var found = QueryExpectation.Found()
        let elapsed = try measure {
            for _ in 0..<QueryExpectation.repetitions {
                var binds = PostgresBindings(capacity: 3)
                binds.append(QueryExpectation.magnitude)
                binds.append(QueryExpectation.time)
                binds.append(Int64(QueryExpectation.limit))
                let result = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
                var tremors: [TremorRow] = []
                for row in result.rows { tremors.append(try decode(row.makeRandomAccess(), from: 1)) }
                found.add(count: tremors.count)
                for tremor in tremors { found.add(magnitude: tremor.magnitude, time: tremor.time) }
            }
        }
        try expected.check(found, "raw postgres indexed query")
        return elapsed
    }

    /// Timed: every row of the store's million-reading table streamed (rows handed over as they
    /// arrive, none kept), each decoded into a struct, its value summed.
    static func iterate(schema: String, expected: MagnitudeSum) throws -> Duration {
        let connection = try connect(schema: schema)
        defer { connection.closeNow() }
        let found = SumBox()
        let elapsed = try measure {
            _ = try connection.query(PostgresQuery(unsafeSQL: "SELECT Z_PK, ZVALUE, ZCOUNT, ZLABEL, ZTIME FROM ZREADING ORDER BY Z_PK"), logger: logger) { row in
                let cells = row.makeRandomAccess()
                let reading = (id: try cells[0].decode(Int64.self), value: try cells[1].decode(Double.self), count: try cells[2].decode(Int64.self),
                               label: try cells[3].decode(String.self), time: try cells[4].decode(Double.self))
                found.add(reading.value)
            }.wait()
        }
        try expected.check(found.sum, "raw postgres iteration")
        return elapsed
    }

    /// A running sum the row callback (on the event loop) adds to, read after the query ends.
    private final class SumBox: @unchecked Sendable {
        // @unchecked: only the connection's event loop adds, before the awaited query completes.
        var sum = MagnitudeSum()
        func add(_ value: Double) { sum.add(value) }
    }

    /// Timed: the batch workload's million rows into a new table in one transaction — 1,000 rows
    /// per `INSERT`, or one `COPY … FROM STDIN` in text format.
    static func batchInsert(copy: Bool) throws -> Duration {
        let schema = PostgresWorkloads.freshSchema(copy ? "raw_copy" : "raw_batch")
        defer { drop(schema) }
        let connection = try readingTable(schema: schema)
        defer { connection.closeNow() }
        let count = BatchWorkloads.rowCount
        let elapsed = try measure {
            _ = try connection.query("BEGIN", logger: logger).wait()
            if copy {
                try copyRows(count, on: connection)
            } else {
                var start = 0
                while start < count {
                    let end = min(start + 1000, count)
                    var binds = PostgresBindings(capacity: (end - start) * 5)
                    var tuples: [String] = []
                    for i in start..<end {
                        let base = (i - start) * 5
                        tuples.append("($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4), $\(base + 5))")
                        let row = BatchWorkloads.row(i)
                        binds.append(Int64(i + 1))
                        binds.append(row["value"] as? Double ?? 0)
                        binds.append(Int64(row["count"] as? Int ?? 0))
                        binds.append(row["label"] as? String ?? "")
                        binds.append((row["time"] as? Date)?.timeIntervalSinceReferenceDate ?? 0)
                    }
                    _ = try connection.query(PostgresQuery(unsafeSQL: "INSERT INTO reading (id, value, count, label, time) VALUES " + tuples.joined(separator: ", "), binds: binds), logger: logger).wait()
                    start = end
                }
            }
            _ = try connection.query("COMMIT", logger: logger).wait()
        }
        let stored = try connection.query("SELECT COUNT(*) FROM reading", logger: logger).wait().rows.first?.makeRandomAccess()[0].decode(Int64.self)
        guard stored == Int64(count) else { throw BenchmarkError.wrongResultCount(found: Int(stored ?? 0), expected: count) }
        return elapsed
    }

    /// A new schema with the empty `reading` table of the batch workloads, and a connection to it.
    static func readingTable(schema: String) throws -> PostgresConnection {
        let setup = try connect()
        _ = try setup.query("CREATE SCHEMA \(unescaped: schema)", logger: logger).wait()
        _ = try setup.query("CREATE TABLE \(unescaped: schema).reading (id BIGINT PRIMARY KEY, value DOUBLE PRECISION, count BIGINT, label TEXT, time DOUBLE PRECISION)", logger: logger).wait()
        setup.closeNow()
        return try connect(schema: schema)
    }

    /// Timed: one `DELETE FROM reading` of the batch workload's million rows (copied in untimed).
    static func batchDelete() throws -> Duration {
        let schema = PostgresWorkloads.freshSchema("raw_delete")
        defer { drop(schema) }
        let connection = try readingTable(schema: schema)
        defer { connection.closeNow() }
        let count = BatchWorkloads.rowCount
        _ = try connection.query("BEGIN", logger: logger).wait()
        try copyRows(count, on: connection)
        _ = try connection.query("COMMIT", logger: logger).wait()
        try analyze(schema)
        var deleted = 0
        let elapsed = try measure { deleted = try connection.query("DELETE FROM reading", logger: logger).wait().metadata.rows ?? 0 }
        guard deleted == count else { throw BenchmarkError.wrongResultCount(found: deleted, expected: count) }
        return elapsed
    }

    /// `COPY reading FROM STDIN`, the rows streamed as text in 64 KiB buffers (postgres-nio's
    /// COPY is async only: run in a task, waited for here).
    private static func copyRows(_ count: Int, on connection: PostgresConnection) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        let box = ConnectionBox(connection: connection)
        Task {
            do {
                try await box.connection.copyFrom(table: "reading", columns: ["id", "value", "count", "label", "time"], logger: logger) { writer in
                    var buffer = ByteBuffer()
                    buffer.reserveCapacity(1 << 16)
                    for i in 0..<count {
                        let row = BatchWorkloads.row(i)
                        let time = (row["time"] as? Date)?.timeIntervalSinceReferenceDate ?? 0
                        buffer.writeString("\(i + 1)\t\(row["value"] as? Double ?? 0)\t\(row["count"] as? Int ?? 0)\t\(row["label"] as? String ?? "")\t\(time)\n")
                        if buffer.readableBytes >= 1 << 16 {
                            try await writer.write(buffer)
                            buffer.clear()
                        }
                    }
                    if buffer.readableBytes > 0 { try await writer.write(buffer) }
                }
            } catch {
                failure.error = error
            }
            done.signal()
        }
        done.wait()
        if let error = failure.error { throw error }
    }

    private final class FailureBox: @unchecked Sendable {
        // @unchecked: written by the task before it signals, read after the wait.
        var error: (any Error)?
    }

    private struct ConnectionBox: @unchecked Sendable {
        // @unchecked: postgres-nio's connection is thread-safe; the caller waits for the task.
        let connection: PostgresConnection
    }
}

extension PostgresConnection {
    /// Closes the connection and waits until it is closed.
    func closeNow() {
        let closing: EventLoopFuture<Void> = close()
        _ = try? closing.wait()
    }
}
