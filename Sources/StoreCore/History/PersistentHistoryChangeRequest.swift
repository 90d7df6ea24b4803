import Foundation

/// Fetches or deletes a store's persistent history, as Core Data's `NSPersistentHistoryChangeRequest`:
/// history after a date, a token or a transaction, optionally narrowed by a fetch request on
/// changes or transactions; or deletes history before a date, token or transaction.
///
/// Execute it with ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)``. History
/// is recorded only by stores loaded with ``PersistentStoreOption/persistentHistoryTracking``.
///
/// For example:
///
/// ```swift
/// var request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// request.resultType = .transactionsAndChanges
/// let transactions = try context.execute(request).transactions ?? []
/// try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: lastToken))
/// ```
public struct PersistentHistoryChangeRequest: Hashable, Sendable {
    /// Where the history the request reads or deletes starts or ends.
    public enum Bound: Hashable, Sendable {
        /// Transactions committed after (for fetches) or before (for deletes) a date.
        case date(Date)
        /// Transactions after (fetches) or up to and including (deletes) a token; `nil`: all.
        case token(PersistentHistoryToken?)
    }

    /// Whether the request reads history or deletes it.
    public enum Operation: Hashable, Sendable {
        /// Read history after the bound — Core Data's `fetchHistory(after:)`.
        case fetch
        /// Delete history before (for a token: up to and including) the bound — Core Data's
        /// `deleteHistory(before:)`.
        case delete
    }

    /// What an executed request returns.
    ///
    /// For example:
    ///
    /// ```swift
    /// var request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
    /// request.resultType = .changesOnly
    /// let changes = try context.execute(request).changes ?? []
    /// request.resultType = .count
    /// let count = try context.execute(request).count ?? 0
    /// ```
    public enum ResultType: Hashable, Sendable {
        /// Whether it succeeded.
        case statusOnly
        /// How many transactions (or, narrowed by a change fetch request, changes) it matched or deleted.
        case count
        /// Transactions without their changes.
        case transactionsOnly
        /// Changes without their transactions.
        case changesOnly
        /// Transactions, each with its changes.
        case transactionsAndChanges
    }

    /// Whether the request fetches or deletes history.
    public var operation: Operation
    /// Where the history fetched starts, or where the history deleted ends: a date or a token.
    public var bound: Bound
    /// Narrows a fetch to the changes or transactions this request selects.
    public var fetchRequest: PersistentHistoryFetchRequest?
    /// What executing the request returns — like Core Data's
    /// `NSPersistentHistoryChangeRequest.resultType`. `.transactionsAndChanges` by default.
    public var resultType: ResultType = .transactionsAndChanges

    /// A request to fetch or delete history from `bound`; the `fetchHistory` and `deleteHistory`
    /// factories make the usual ones.
    public init(operation: Operation, bound: Bound) {
        self.operation = operation
        self.bound = bound
    }

    /// History committed after `date`.
    public static func fetchHistory(after date: Date) -> Self { Self(operation: .fetch, bound: .date(date)) }
    /// History after `token` (all history for `nil`).
    public static func fetchHistory(after token: PersistentHistoryToken?) -> Self { Self(operation: .fetch, bound: .token(token)) }
    /// History after `transaction` (all history for `nil`).
    public static func fetchHistory(after transaction: PersistentHistoryTransaction?) -> Self {
        fetchHistory(after: transaction?.token)
    }
    /// All history the fetch request selects.
    public static func fetchHistory(withFetchRequest fetchRequest: PersistentHistoryFetchRequest) -> Self {
        var request = fetchHistory(after: nil as PersistentHistoryToken?)
        request.fetchRequest = fetchRequest
        return request
    }
    /// Deletes history committed before `date`.
    public static func deleteHistory(before date: Date) -> Self { Self(operation: .delete, bound: .date(date)) }
    /// Deletes history up to and including `token` (all history for `nil`).
    public static func deleteHistory(before token: PersistentHistoryToken?) -> Self { Self(operation: .delete, bound: .token(token)) }
    /// Deletes history up to and including `transaction`.
    public static func deleteHistory(before transaction: PersistentHistoryTransaction?) -> Self {
        deleteHistory(before: transaction?.token)
    }
}
