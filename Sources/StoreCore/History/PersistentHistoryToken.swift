import Foundation

/// A position in a store's persistent history: the number of the last transaction seen.
///
/// Tokens are comparable (later transactions have greater tokens), `Codable` to keep between
/// launches, and name their store, as in Core Data's `NSPersistentHistoryToken`.
///
/// For example:
///
/// ```swift
/// let saved = try JSONEncoder().encode(lastToken)
/// let token = try JSONDecoder().decode(PersistentHistoryToken.self, from: saved)
/// let newer = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token))
/// ```
public struct PersistentHistoryToken: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The identifier (UUID) of the store the history belongs to.
    public let storeIdentifier: String
    /// The number of the transaction; numbers only grow.
    public let transactionNumber: Int64

    /// The token of transaction `transactionNumber` in the store `storeIdentifier`; stores make these.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.storeIdentifier, lhs.transactionNumber) < (rhs.storeIdentifier, rhs.transactionNumber)
    }

    public var description: String { "\(storeIdentifier)#\(transactionNumber)" }
}
