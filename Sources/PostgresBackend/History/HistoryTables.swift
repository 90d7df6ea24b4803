#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// The tables persistent history lives in, in the store's schema, written in the same
/// transaction as the changes they describe. Transaction numbers come from a sequence (so they
/// keep growing after history is deleted) and are taken under a transaction-scoped advisory
/// lock held until commit, so transactions become visible in the order of their numbers — a
/// reader that saw number n never later finds a smaller one.
enum HistoryTables {
    static let transactions = "Z_HISTORYTRANSACTION"
    static let changes = "Z_HISTORYCHANGE"

    static let ddl = [
        """
        CREATE TABLE IF NOT EXISTS \(transactions) (Z_PK BIGSERIAL PRIMARY KEY, ZTIMESTAMP DOUBLE PRECISION NOT NULL, \
        ZAUTHOR TEXT, ZCONTEXTNAME TEXT, ZPROCESSID BIGINT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYTRANSACTION_TIMESTAMP ON \(transactions) (ZTIMESTAMP)",
        """
        CREATE TABLE IF NOT EXISTS \(changes) (Z_PK BIGSERIAL PRIMARY KEY, ZTRANSACTION BIGINT NOT NULL, \
        ZCHANGETYPE BIGINT NOT NULL, ZENTITY BIGINT NOT NULL, ZENTITYPK BIGINT NOT NULL, ZCOLUMNS TEXT, ZTOMBSTONE TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_TRANSACTION ON \(changes) (ZTRANSACTION)",
        "CREATE INDEX IF NOT EXISTS \(lastCreatedIndex) ON \(changes) (ZENTITY, ZENTITYPK, ZTRANSACTION)",
    ]

    /// The object the last statement of ``ddl`` creates.
    static let lastCreatedIndex = "Z_HISTORYCHANGE_OBJECT"

    static func create(on connection: ServerConnection) throws {
        for statement in ddl { try connection.run(statement) }
    }

    /// Takes the store's history lock until the current transaction ends.
    static func lock(on connection: ServerConnection, schema: String) throws {
        try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("stowage.history." + schema)])
    }

    /// Starts recording a transaction (its changes follow, by number): takes the history lock
    /// and the transaction's number.
    static func begin(_ record: HistoryRecord, on connection: ServerConnection, lockName: String) throws -> Int64 {
        try lock(on: connection, schema: lockName)
        guard case .integer(let number)? = try connection.scalar(
            "INSERT INTO \(transactions) (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME, ZPROCESSID) VALUES ($1, $2, $3, $4) RETURNING Z_PK",
            [.real(record.timestamp.timeIntervalSinceReferenceDate), record.author.map(SQLValue.text) ?? .null,
             record.contextName.map(SQLValue.text) ?? .null, .integer(Int64(record.processID))])
        else { throw PostgresServerError("the history transaction got no number") }
        return number
    }

    /// Records one transaction and its changes; returns its number.
    @discardableResult
    static func write(_ record: HistoryRecord, schema: SQLSchema, on connection: ServerConnection, lockName: String) throws -> Int64 {
        let number = try begin(record, on: connection, lockName: lockName)
        // Many changes per statement, within PostgreSQL's 65,535 parameters.
        let columnsPerRow = 6
        for chunk in stride(from: 0, to: record.changes.count, by: 1000) {
            var values: [String] = []
            var bindings: [SQLValue] = []
            for change in record.changes[chunk..<min(chunk + 1000, record.changes.count)] {
                guard let key = change.objectID.primaryKey, let entity = schema.tables[change.objectID.entityName]?.number else { continue }
                let base = bindings.count
                values.append("(" + (1...columnsPerRow).map { "$\(base + $0)" }.joined(separator: ", ") + ")")
                bindings += [
                    .integer(number), .integer(Int64(change.type.rawValue)), .integer(entity), .integer(key),
                    change.updated.map { .text($0.sorted().joined(separator: ",")) } ?? .null,
                    change.tombstone.map { .text(HistoryTombstone.encode($0)) } ?? .null,
                ]
            }
            guard !values.isEmpty else { continue }
            try connection.run(
                "INSERT INTO \(changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS, ZTOMBSTONE) VALUES " + values.joined(separator: ", "),
                bindings)
        }
        return number
    }
}
#endif
