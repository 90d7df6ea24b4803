/// What an executed ``PersistentHistoryChangeRequest`` returns, by its result type.
///
/// For example:
///
/// ```swift
/// let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token))
/// for transaction in result.transactions ?? [] { print(transaction.token, transaction.changes?.count ?? 0) }
/// ```
public enum PersistentHistoryResult: Hashable, Sendable {
    /// For `.statusOnly`: whether the request succeeded.
    case status(Bool)
    /// For `.count`: how many transactions (or, narrowed by a change fetch request, changes) it
    /// matched or deleted.
    case count(Int)
    /// For `.transactionsOnly` (without their changes) and `.transactionsAndChanges`: the
    /// transactions, in commit order.
    case transactions([PersistentHistoryTransaction])
    /// For `.changesOnly`: the changes, in the order they were recorded.
    case changes([PersistentHistoryChange])

    /// The transactions, for `.transactionsOnly` and `.transactionsAndChanges`.
    public var transactions: [PersistentHistoryTransaction]? {
        if case .transactions(let value) = self { value } else { nil }
    }

    /// The changes: for `.changesOnly`, or every transaction's changes in order.
    public var changes: [PersistentHistoryChange]? {
        switch self {
        case .changes(let value): value
        case .transactions(let value): value.flatMap { $0.changes ?? [] }
        default: nil
        }
    }

    /// The count, for `.count`.
    public var count: Int? {
        if case .count(let value) = self { value } else { nil }
    }

    /// Whether the request succeeded, for `.statusOnly`.
    public var status: Bool? {
        if case .status(let value) = self { value } else { nil }
    }
}
