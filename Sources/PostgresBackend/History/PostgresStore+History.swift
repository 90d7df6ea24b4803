#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

extension PostgresStore: PersistentHistoryStore {
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

    /// The newest committed transaction's token.
    public func currentHistoryToken() throws -> PersistentHistoryToken? {
        guard isHistoryTrackingEnabled else { return nil }
        let number = try read { connection -> Int64? in
            guard case .integer(let number)? = try connection.scalar("SELECT MAX(Z_PK) FROM \(HistoryTables.transactions)") else { return nil }
            return number
        }
        return number.map { PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: $0) }
    }

    /// The transactions after the request's bound with their changes, in one query, then
    /// narrowed and shaped in memory by the request's fetch request.
    private func fetchHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        var condition = "TRUE"
        var arguments: [SQLValue] = []
        switch request.bound {
        case .date(let date): (condition, arguments) = ("t.ZTIMESTAMP > $1", [.real(date.timeIntervalSinceReferenceDate)])
        case .token(let token?) where token.storeIdentifier == identifier: (condition, arguments) = ("t.Z_PK > $1", [.integer(token.transactionNumber)])
        case .token: break
        }
        let sql = """
            SELECT t.Z_PK, t.ZTIMESTAMP, t.ZAUTHOR, t.ZCONTEXTNAME, t.ZPROCESSID, c.Z_PK, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS, c.ZTOMBSTONE
            FROM \(HistoryTables.transactions) t LEFT JOIN \(HistoryTables.changes) c ON c.ZTRANSACTION = t.Z_PK
            WHERE \(condition) ORDER BY t.Z_PK, c.Z_PK
            """
        let found = try read { try $0.query(sql, arguments) }
        var assembler = HistoryAssembler(storeIdentifier: identifier, rows: rows, model: model)
        for row in found {
            var seconds = 0.0
            if case .real(let value) = row.value(at: 1) { seconds = value }
            let transaction = HistoryAssembler.Transaction(
                number: row.int64(at: 0), timestamp: seconds, author: row.text(at: 2), contextName: row.text(at: 3), processID: row.int64(at: 4))
            let change = row.isNull(at: 5) ? nil : HistoryAssembler.Change(
                id: row.int64(at: 5), type: row.int64(at: 6), entityNumber: row.int64(at: 7), key: row.int64(at: 8),
                columns: row.text(at: 9), tombstone: row.text(at: 10))
            assembler.add(transaction, change: change)
        }
        return try PersistentHistoryFilter(request, storeIdentifier: identifier).result(from: assembler.finish())
    }

    private func deleteHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; no history was deleted") }
        var condition = "TRUE"
        var arguments: [SQLValue] = []
        switch request.bound {
        case .date(let date): (condition, arguments) = ("ZTIMESTAMP < $1", [.real(date.timeIntervalSinceReferenceDate)])
        case .token(let token?):
            guard token.storeIdentifier == identifier else { return request.resultType == .count ? .count(0) : .status(true) }
            (condition, arguments) = ("Z_PK <= $1", [.integer(token.transactionNumber)])
        case .token(nil): break
        }
        let count = try write { connection in
            try connection.run(
                "DELETE FROM \(HistoryTables.changes) WHERE ZTRANSACTION IN (SELECT Z_PK FROM \(HistoryTables.transactions) WHERE \(condition))", arguments)
            return try connection.run("DELETE FROM \(HistoryTables.transactions) WHERE \(condition)", arguments)
        }
        return request.resultType == .count ? .count(count) : .status(true)
    }
}
#endif
