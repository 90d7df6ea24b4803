import PostgresNIO

/// A failure the server or the connection reported, with the SQL that caused it; the store turns
/// it into a ``StoreCore/StoreError`` (or a validation or conflict error) at its edge.
struct PostgresError: Error, CustomStringConvertible {
    /// The SQLSTATE code (`23505` unique violation, `40001` serialization failure…), when the
    /// server answered.
    let sqlState: String?
    let message: String
    let sql: String
    let isConnectionLost: Bool

    init(_ error: PSQLError, sql: String) {
        sqlState = error.serverInfo?[.sqlState]
        let detail = [error.serverInfo?[.message], error.serverInfo?[.detail]].compactMap { $0 }.joined(separator: ": ")
        message = detail.isEmpty ? "\(error.code)" : detail
        self.sql = sql
        isConnectionLost = error.serverInfo == nil
            && [PSQLError.Code.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code)
    }

    init(_ message: String, sql: String = "") {
        sqlState = nil
        self.message = message
        self.sql = sql
        isConnectionLost = false
    }

    var isUniqueViolation: Bool { sqlState == "23505" }
    /// A serialization failure or deadlock: the transaction may succeed when run again.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    var description: String {
        let state = sqlState.map { " [\($0)]" } ?? ""
        return sql.isEmpty ? "\(message)\(state)" : "\(message)\(state) in: \(sql.prefix(300))"
    }
}
