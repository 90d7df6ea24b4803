import Foundation

/// Decides which transactions and changes a history request selects, in memory: the bound
/// (date or token) and the narrowing fetch request's predicate. Atomic stores filter their whole
/// history with it; the SQLite store uses it for predicates it does not translate to SQL.
package struct PersistentHistoryFilter {
    let request: PersistentHistoryChangeRequest
    let storeIdentifier: String
    /// Whether the store already applied the narrowing predicate (the SQL stores' translated
    /// predicates): the filter then only bounds and limits.
    let predicateIsApplied: Bool
    private let evaluator = PredicateEvaluator()

    package init(_ request: PersistentHistoryChangeRequest, storeIdentifier: String, predicateIsApplied: Bool = false) {
        self.request = request
        self.storeIdentifier = storeIdentifier
        self.predicateIsApplied = predicateIsApplied
    }

    /// Whether the transaction lies after (fetch) or before (delete) the request's bound.
    package func isWithinBound(_ transaction: PersistentHistoryTransaction) -> Bool {
        switch (request.operation, request.bound) {
        case (.fetch, .date(let date)): transaction.timestamp > date
        case (.delete, .date(let date)): transaction.timestamp < date
        case (_, .token(nil)): true
        case (.fetch, .token(let token?)): token.storeIdentifier != storeIdentifier || transaction.transactionNumber > token.transactionNumber
        case (.delete, .token(let token?)): token.storeIdentifier == storeIdentifier && transaction.transactionNumber <= token.transactionNumber
        }
    }

    /// The number of the token a fetch reads after, when it is one of this store's tokens — the
    /// only bound deleted history can outdate (a date, or `nil` for all history, never expires).
    package var fetchedAfterTransaction: Int64? {
        guard request.operation == .fetch, case .token(let token?) = request.bound, token.storeIdentifier == storeIdentifier else { return nil }
        return token.transactionNumber
    }

    /// Throws `persistentHistoryTokenExpired` when the fetch reads after a token older than
    /// history deleted since: `purgedThrough` is the newest transaction any deletion removed, so
    /// a token below it misses at least that one. A token at or after it is not expired.
    package func checkToken(purgedThrough: Int64, url: URL?) throws(StoreError) {
        guard let number = fetchedAfterTransaction, number < purgedThrough else { return }
        throw StoreError(
            .persistentHistoryTokenExpired, url: url,
            "the history token \(storeIdentifier)#\(number) has expired: history up to transaction \(purgedThrough) was deleted after it, so the "
                + "transactions after it are no longer all there; read the current state again and fetch history after a newer token")
    }

    /// Whether the narrowing fetch request selects a transaction (always, without one or when it is on changes).
    package func selects(_ transaction: PersistentHistoryTransaction) throws -> Bool {
        guard !predicateIsApplied, let fetch = request.fetchRequest, fetch.entity == .transaction, let predicate = fetch.predicate else { return true }
        return try evaluator.evaluate(predicate, on: HistoryTransactionSource(transaction: transaction))
    }

    /// Whether the narrowing fetch request selects a change (always, without one or when it is on transactions).
    package func selects(_ change: PersistentHistoryChange, of transaction: PersistentHistoryTransaction) throws -> Bool {
        guard !predicateIsApplied, let fetch = request.fetchRequest, fetch.entity == .change, let predicate = fetch.predicate else { return true }
        return try evaluator.evaluate(predicate, on: HistoryChangeSource(change: change, transaction: transaction))
    }

    /// The request's result from the transactions within its bound (each with all its changes),
    /// in order.
    package func result(from transactions: [PersistentHistoryTransaction]) throws -> PersistentHistoryResult {
        var selected: [PersistentHistoryTransaction] = []
        let limit = request.fetchRequest?.fetchLimit ?? 0
        var remaining = limit > 0 ? limit : Int.max
        for transaction in transactions where isWithinBound(transaction) {
            guard remaining > 0 else { break }
            guard try selects(transaction) else { continue }
            if request.fetchRequest?.entity == .change {
                var changes: [PersistentHistoryChange] = []
                for change in transaction.changes ?? [] where remaining > 0 {
                    if try selects(change, of: transaction) {
                        changes.append(change)
                        remaining -= 1
                    }
                }
                if changes.isEmpty { continue }
                selected.append(transaction.with(changes: changes))
            } else {
                selected.append(transaction)
                remaining -= 1
            }
        }
        return Self.shape(selected, as: request.resultType, countingChanges: request.fetchRequest?.entity == .change)
    }

    /// Selected transactions (with their selected changes) in the form the result type asks for.
    package static func shape(_ selected: [PersistentHistoryTransaction], as type: PersistentHistoryChangeRequest.ResultType, countingChanges: Bool) -> PersistentHistoryResult {
        switch type {
        case .statusOnly: .status(true)
        case .count: .count(countingChanges ? selected.reduce(0) { $0 + ($1.changes?.count ?? 0) } : selected.count)
        case .transactionsOnly: .transactions(selected.map { $0.with(changes: nil) })
        case .changesOnly: .changes(selected.flatMap { $0.changes ?? [] })
        case .transactionsAndChanges: .transactions(selected)
        }
    }
}

extension PersistentHistoryTransaction {
    /// The same transaction with other changes.
    package func with(changes: [PersistentHistoryChange]?) -> PersistentHistoryTransaction {
        PersistentHistoryTransaction(token: token, timestamp: timestamp, author: author, contextName: contextName, processID: processID, changes: changes)
    }
}

/// A transaction as predicates see it.
struct HistoryTransactionSource: PredicateEvaluationSource {
    let transaction: PersistentHistoryTransaction
    var evaluationObjectID: ManagedObjectID? { nil }

    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        switch key {
        case "author": .value(transaction.author.map(StoreValue.string) ?? .null)
        case "contextName": .value(transaction.contextName.map(StoreValue.string) ?? .null)
        case "timestamp": .value(.date(transaction.timestamp))
        case "processID": .value(.integer(Int64(transaction.processID)))
        case "storeID": .value(.string(transaction.storeID))
        case "transactionNumber", "token": .value(.integer(transaction.transactionNumber))
        default: throw FetchError(.invalidKeyPath, "history transactions have no key '\(key)' (author, contextName, timestamp, processID, storeID, transactionNumber)")
        }
    }
}

/// A change as predicates see it; `transaction` leads to its transaction's keys.
struct HistoryChangeSource: PredicateEvaluationSource {
    let change: PersistentHistoryChange
    let transaction: PersistentHistoryTransaction
    var evaluationObjectID: ManagedObjectID? { nil }

    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        switch key {
        case "changedObjectID", "changedObject": .value(.objectID(change.changedObjectID))
        case "changedEntity", "entityName": .value(.string(change.changedObjectID.entityName))
        case "changeType": .value(.integer(Int64(change.changeType.rawValue)))
        case "changeID": .value(.integer(change.changeID))
        case "transaction": .object(HistoryTransactionSource(transaction: transaction))
        default: throw FetchError(.invalidKeyPath, "history changes have no key '\(key)' (changedObjectID, changedEntity, changeType, changeID, transaction)")
        }
    }
}
