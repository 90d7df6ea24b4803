/// How a save resolves conflicts with changes other contexts saved first (optimistic locking),
/// as in Core Data's merge policies.
///
/// For example:
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump   // my changes win, property by property
/// ```
public enum MergePolicy: Sendable, Hashable {
    /// Refuse the save with a ``MergeConflictError`` (the default).
    case error
    /// Property by property, values changed in the store win over this context's changes.
    case mergeByPropertyStoreTrump
    /// Property by property, this context's changes win; other properties take the store's values.
    case mergeByPropertyObjectTrump
    /// This context's version of each conflicting object replaces the store's entirely.
    case overwrite
    /// This context's changes to conflicting objects are discarded in favour of the store's.
    case rollback
}
