import Foundation

/// Narrows a ``PersistentHistoryChangeRequest`` to the changes or transactions a predicate
/// selects; make one with ``PersistentHistoryChange/fetchRequest(_:)`` or
/// ``PersistentHistoryTransaction/fetchRequest(_:)``.
///
/// For example, every change to one object after a date:
///
/// ```swift
/// var request = PersistentHistoryChangeRequest.fetchHistory(after: lastWeek)
/// request.fetchRequest = PersistentHistoryChange.fetchRequest(.format("changedObjectID == %@", id))
/// ```
public struct PersistentHistoryFetchRequest: Hashable, Sendable {
    /// What the predicate is evaluated against.
    public enum Entity: Hashable, Sendable {
        /// The predicate selects changes (``PersistentHistoryChange/fetchRequest(_:)``).
        case change
        /// The predicate selects transactions (``PersistentHistoryTransaction/fetchRequest(_:)``).
        case transaction
    }

    /// Whether the request selects changes or transactions (the entity of Core Data's history
    /// fetch request).
    public var entity: Entity
    /// Which changes or transactions to keep; `nil` keeps all.
    public var predicate: StorePredicate?
    /// At most this many changes (or transactions) are returned; 0 means no limit.
    public var fetchLimit: Int = 0

    /// A request selecting the changes or transactions `predicate` matches (all for `nil`).
    public init(entity: Entity, predicate: StorePredicate? = nil) {
        self.entity = entity
        self.predicate = predicate
    }
}
