#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import PostgresNIO

/// A failure the server or the connection reported, with the SQL that caused it. The store turns
/// it into a `StoreError` (or a validation or conflict error) at its edge and keeps it there as
/// `underlyingError`.
///
/// For example:
///
/// ```swift
/// catch let error as StoreError {
///     if let server = error.underlyingError as? PostgresServerError, server.sqlState == "53100" {
///         print("the server's disk is full")
///     }
/// }
/// ```
public struct PostgresServerError: Error, CustomStringConvertible, Sendable {
    /// The SQLSTATE code (`23505` unique violation, `40001` serialization failure…), when the
    /// server answered.
    public let sqlState: String?
    /// The server's message and detail, or what the connection reported.
    public let message: String
    /// The statement that failed (empty when the failure was not a statement's).
    public let sql: String
    /// Whether the connection to the server was lost (rather than a statement refused).
    public let isConnectionLost: Bool

    init(_ error: PSQLError, sql: String) {
        sqlState = error.serverInfo?[.sqlState]
        let detail = [error.serverInfo?[.message], error.serverInfo?[.detail]].compactMap { $0 }.joined(separator: ": ")
        message = detail.isEmpty ? "\(error.code)" : detail
        self.sql = sql
        isConnectionLost = Self.connectionLostCodes.contains(error.code) || Self.isConnectionLost(sqlState: sqlState)
    }

    /// What postgres-nio reports when the connection ended, however the server phrased it.
    private static let connectionLostCodes: [PSQLError.Code] = [
        .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .messageDecodingFailure, .unexpectedBackendMessage,
    ]

    /// SQLSTATEs with which the server ends a session: class 08 (connection exception) and
    /// `57P01`–`57P05` (administrator command, crash or immediate shutdown, cannot connect now,
    /// idle-session timeout, and so on).
    private static func isConnectionLost(sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P")
    }

    init(_ message: String, sql: String = "", isConnectionLost: Bool = false) {
        sqlState = nil
        self.message = message
        self.sql = sql
        self.isConnectionLost = isConnectionLost
    }

    var isUniqueViolation: Bool { sqlState == "23505" }
    /// A serialization failure or deadlock: the transaction may succeed when run again.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        let state = sqlState.map { " [\($0)]" } ?? ""
        return sql.isEmpty ? "\(message)\(state)" : "\(message)\(state) in: \(sql.prefix(300))"
    }
}
#endif
