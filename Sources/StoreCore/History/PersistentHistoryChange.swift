import Foundation

/// One object's change within a persistent-history transaction.
///
/// Updates list the properties that changed; deletions carry a tombstone holding the values of
/// the attributes the model marks ``AttributeDescription/preservesValueInHistoryOnDeletion``.
///
/// For example:
///
/// ```swift
/// for change in transaction.changes ?? [] where change.changeType == .delete {
///     print(change.changedObjectID, change.tombstone?["code"] ?? .null)
/// }
/// ```
public struct PersistentHistoryChange: Hashable, Sendable {
    /// What happened to the object.
    ///
    /// For example:
    ///
    /// ```swift
    /// for change in transaction.changes ?? [] {
    ///     switch change.changeType {
    ///     case .insert, .update: print("changed:", change.changedObjectID)
    ///     case .delete: print("deleted:", change.changedObjectID, change.tombstone ?? [:])
    ///     }
    /// }
    /// ```
    public enum ChangeType: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The object was inserted — Core Data's `NSPersistentHistoryChangeType.insert`.
        case insert = 0
        /// The object was updated — Core Data's `NSPersistentHistoryChangeType.update`.
        case update = 1
        /// The object was deleted — Core Data's `NSPersistentHistoryChangeType.delete`.
        case delete = 2

        public var description: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// The change's number, unique in its store and growing with every change recorded.
    public let changeID: Int64
    /// The object inserted, updated or deleted.
    public let changedObjectID: ManagedObjectID
    /// Whether the object was inserted, updated or deleted — Core Data's `changeType`.
    public let changeType: ChangeType
    /// For updates, the names of the properties that changed; `nil` for inserts and deletes.
    public let updatedProperties: Set<String>?
    /// For deletions, the preserved attribute values by name; `nil` otherwise.
    public let tombstone: [String: StoreValue]?
    /// The token of the transaction the change belongs to.
    public let transactionToken: PersistentHistoryToken

    /// A change as a store records it; stores build these, applications read them.
    public init(
        changeID: Int64, changedObjectID: ManagedObjectID, changeType: ChangeType, updatedProperties: Set<String>?,
        tombstone: [String: StoreValue]?, transactionToken: PersistentHistoryToken
    ) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
        self.transactionToken = transactionToken
    }

    /// The tombstone decoded into your own type (``StoreValueDecoder``), or `nil` when the
    /// change has none.
    ///
    /// For example:
    ///
    /// ```swift
    /// struct DeletedQuake: Decodable, Sendable { let code: String }
    /// let gone = try changes.compactMap { try $0.tombstone(as: DeletedQuake.self) }
    /// ```
    ///
    /// - Throws: `DecodingError` naming a key the tombstone lacks or holds as another type.
    public func tombstone<T: Decodable>(as type: T.Type) throws -> T? {
        try tombstone.map { try StoreValueDecoder().decode(T.self, from: $0) }
    }

    /// A fetch request for changes, to narrow a ``PersistentHistoryChangeRequest``; its
    /// predicate reads `changedObjectID`, `changedEntity` (the entity name), `changeType`
    /// (`PersistentHistoryChange.ChangeType` raw values), `changeID` and the transaction's keys
    /// as `transaction.author`, `transaction.timestamp`…
    ///
    /// For example:
    ///
    /// ```swift
    /// let changes = PersistentHistoryChange.fetchRequest(.format("changedObjectID == %@", quakeID))
    /// ```
    public static func fetchRequest(_ predicate: StorePredicate? = nil) -> PersistentHistoryFetchRequest {
        PersistentHistoryFetchRequest(entity: .change, predicate: predicate)
    }
}
