#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import Logging
import StoreSQL

/// SQL logging for the PostgreSQL store, switched on by `STOWAGE_SQL_DEBUG` as for SQLite (1:
/// statements, 2: and their values), through swift-log (label `stowage.postgres`).
struct PostgresStatementLog: Sendable {
    let level: Int
    let logger: Logger

    init(level: Int) {
        self.level = max(0, min(level, 2))
        var logger = Logger(label: "stowage.postgres")
        logger.logLevel = .warning
        self.logger = logger
    }

    static var fromEnvironment: PostgresStatementLog {
        PostgresStatementLog(level: ProcessInfo.processInfo.environment["STOWAGE_SQL_DEBUG"].flatMap { Int($0) } ?? 0)
    }

    func statement(_ sql: String, _ values: [SQLValue]) {
        guard level > 0 else { return }
        var line = "sql: \(sql)"
        if level >= 2, !values.isEmpty { line += " | bound: " + values.map(\.description).joined(separator: ", ") }
        logger.warning("\(line)")
    }
}
#endif
