import Foundation
import StoreSQL
import Logging
import Synchronization
internal import CSQLite

/// SQL logging with Core Data's four levels, switched on by the `STOWAGE_SQL_DEBUG` environment
/// variable (Core Data's `-com.apple.CoreData.SQLDebug`):
///
/// 1. every statement, and how long each query took
/// 2. plus the values bound to it
/// 3. plus the number of rows each query returned
/// 4. plus `EXPLAIN QUERY PLAN` for every SELECT — a table scan where an index was expected
///    shows up here.
///
/// For example:
///
/// ```sh
/// STOWAGE_SQL_DEBUG=4 swift run stowage demo
/// ```
///
/// Lines go through swift-log (label `stowage.sql`) at `info` level.
struct SQLiteLog: Sendable {
    /// 0 (off) to 4.
    let level: Int
    private let logger: Logger
    /// Counts the queries run through connections that share this log (for tests that check
    /// how lazily faults fire).
    let queries = QueryCounter()

    init(level: Int) {
        self.level = max(0, min(level, 4))
        self.logger = Logger(label: "stowage.sql")
    }

    /// The level the environment asks for.
    static var fromEnvironment: SQLiteLog {
        SQLiteLog(level: ProcessInfo.processInfo.environment["STOWAGE_SQL_DEBUG"].flatMap { Int($0) } ?? 0)
    }

    static let disabled = SQLiteLog(level: 0)

    var isEnabled: Bool { level > 0 }

    func statement(_ sql: String, _ values: [SQLValue]) {
        guard level > 0 else { return }
        write(sql, values)
    }

    /// Counts a query, then logs it.
    func query(_ sql: String, _ values: [SQLValue]) {
        queries.increment()
        guard level > 0 else { return }
        write(sql, values)
    }

    private func write(_ sql: String, _ values: [SQLValue]) {
        var line = "sql: \(sql)"
        if level >= 2, !values.isEmpty { line += " | bound: " + values.map(\.description).joined(separator: ", ") }
        logger.info("\(line)")
    }

    func finished(_ sql: String, rows: Int, after duration: Duration, connection: SQLiteConnection) {
        guard level > 0 else { return }
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        var line = "sql: query took \(String(format: "%.4f", seconds))s"
        if level >= 3 { line += ", \(rows) row\(rows == 1 ? "" : "s")" }
        logger.info("\(line)")
        if level >= 4, sql.uppercased().hasPrefix("SELECT") { explain(sql, connection: connection) }
    }

    private func explain(_ sql: String, connection: SQLiteConnection) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection.handle, "EXPLAIN QUERY PLAN " + sql, -1, &statement, nil) == SQLITE_OK, let statement else { return }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW {
            if let detail = sqlite3_column_text(statement, 3) {
                logger.info("sql: plan \(String(cString: detail))")
            }
        }
    }
}

/// A thread-safe count of queries.
final class QueryCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
