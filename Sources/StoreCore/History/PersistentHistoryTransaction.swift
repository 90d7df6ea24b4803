import Foundation

/// One save or batch request as persistent history recorded it: when, by whom, from which
/// context and process, and the changes it made.
///
/// For example:
///
/// ```swift
/// let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken))
/// for transaction in result.transactions ?? [] {
///     viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
///     lastToken = transaction.token
/// }
/// ```
public struct PersistentHistoryTransaction: Hashable, Sendable {
    /// The transaction's position in its store's history.
    public let token: PersistentHistoryToken
    /// When the transaction was committed.
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The saving context's name.
    public let contextName: String?
    /// The process that committed it.
    public let processID: Int32
    /// The changes, in the order they were recorded (`nil` when the request asked for
    /// transactions only).
    public let changes: [PersistentHistoryChange]?

    /// A transaction as a store records it; stores build these, applications read them.
    public init(
        token: PersistentHistoryToken, timestamp: Date, author: String?, contextName: String?, processID: Int32,
        changes: [PersistentHistoryChange]?
    ) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.processID = processID
        self.changes = changes
    }

    /// The transaction's number in its store (the token's).
    public var transactionNumber: Int64 { token.transactionNumber }
    /// The identifier of the store that recorded it.
    public var storeID: String { token.storeIdentifier }

    /// The transaction as a did-save notification of object IDs, for
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``: a context catches up on
    /// history it did not see (updated objects are refreshed, deleted ones leave it).
    public func objectIDNotification() -> Notification {
        var changes = ContextChanges(kind: .didSave, contextName: contextName)
        for change in self.changes ?? [] {
            switch change.changeType {
            case .insert: changes.insertedObjectIDs.insert(change.changedObjectID)
            case .update: changes.updatedObjectIDs.insert(change.changedObjectID)
            case .delete: changes.deletedObjectIDs.insert(change.changedObjectID)
            }
        }
        return changes.didSaveObjectIDsNotification(object: nil)
    }

    /// A fetch request for transactions, to narrow a ``PersistentHistoryChangeRequest``; its
    /// predicate reads `author`, `contextName`, `timestamp`, `processID`, `storeID` and
    /// `transactionNumber`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let others = PersistentHistoryTransaction.fetchRequest(.format("author != %@", "app"))
    /// ```
    public static func fetchRequest(_ predicate: StorePredicate? = nil) -> PersistentHistoryFetchRequest {
        PersistentHistoryFetchRequest(entity: .transaction, predicate: predicate)
    }
}
