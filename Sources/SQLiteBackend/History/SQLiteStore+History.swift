import Foundation
import StoreCore
import StoreSQL

extension SQLiteStore: PersistentHistoryStore {
    /// Fetches the transactions after the bound from `Z_HISTORYTRANSACTION`/`Z_HISTORYCHANGE` in one query,
    /// or deletes those up to it in one write; throws `unsupportedRequest` unless history tracking is on.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard isHistoryTrackingEnabled else {
            throw StoreError(.unsupportedRequest, url: url, "the store does not record persistent history; load it with the persistentHistoryTracking option")
        }
        switch request.operation {
        case .fetch: return try fetchHistory(request)
        case .delete: return try deleteHistory(request)
        }
    }

    /// The last transaction number handed out (its `sqlite_sequence` row), or `nil` when history tracking
    /// is off or nothing has been recorded yet.
    public func currentHistoryToken() throws -> PersistentHistoryToken? {
        guard isHistoryTrackingEnabled else { return nil }
        let number = try read { connection -> Int64? in
            guard hasHistoryTables else { return nil }
            guard case .integer(let number)? = try connection.scalar("SELECT seq FROM sqlite_sequence WHERE name = ?", [.text(HistoryTables.transactions)]) else { return nil }
            return number
        }
        return number.map { PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: $0) }
    }

    /// One query (``HistoryQuery``) read into transactions, then filtered and shaped in memory.
    private func fetchHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let query = HistoryQuery(request, schema: schema)
        var assembler = HistoryAssembler(storeIdentifier: identifier, rows: rows, model: model)
        try read { connection in
            guard hasHistoryTables else { return }
            try connection.query(query.sql, query.arguments) { row in
                let transaction = HistoryAssembler.Transaction(
                    number: row.int64(at: 0), timestamp: row.double(at: 1), author: row.string(at: 2), contextName: row.string(at: 3),
                    processID: row.int64(at: 4))
                // A transaction without changes comes as one row with NULL change columns.
                let change = row.isNull(at: 5) ? nil : HistoryAssembler.Change(
                    id: row.int64(at: 5), type: row.int64(at: 6), entityNumber: row.int64(at: 7), key: row.int64(at: 8),
                    columns: row.string(at: 9), tombstone: row.string(at: 10))
                assembler.add(transaction, change: change)
            }
        }
        return try PersistentHistoryFilter(request, storeIdentifier: identifier).result(from: assembler.finish())
    }

    private func deleteHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; no history was deleted") }
        let condition: String
        let arguments: [SQLValue]
        switch request.bound {
        case .date(let date): (condition, arguments) = ("ZTIMESTAMP < ?", [.real(date.timeIntervalSinceReferenceDate)])
        case .token(let token?): (condition, arguments) = ("Z_PK <= ?", [.integer(token.transactionNumber)])
        case .token(nil): (condition, arguments) = ("1", [])
        }
        let count = try sqlite {
            try pool.write { connection in
                try connection.transaction {
                    guard hasHistoryTables else { return 0 }
                    try connection.run(
                        "DELETE FROM \(HistoryTables.changes) WHERE ZTRANSACTION IN (SELECT Z_PK FROM \(HistoryTables.transactions) WHERE \(condition))", arguments)
                    try connection.run("DELETE FROM \(HistoryTables.transactions) WHERE \(condition)", arguments)
                    return connection.changes
                }
            }
        }
        return request.resultType == .count ? .count(count) : .status(true)
    }
}
