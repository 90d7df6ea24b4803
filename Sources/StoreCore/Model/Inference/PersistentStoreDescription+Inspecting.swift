import Foundation

extension PersistentStoreDescription {
    /// A read-only description for opening a store with an ``InferredModel`` (or any model that
    /// is not exactly the one that saved it): whole-file stores read their objects by entity and
    /// property name instead of refusing the other model's version hashes, nothing is ever
    /// written, and every save is refused.
    ///
    /// For example:
    ///
    /// ```swift
    /// try coordinator.addPersistentStore(with: .inspecting(url, type: .sqlite))
    /// ```
    public static func inspecting(_ url: URL, type: PersistentStoreType) -> PersistentStoreDescription {
        var description = PersistentStoreDescription(type: type, url: url)
        description.isReadOnly = true
        description.shouldMigrateStoreAutomatically = true
        return description
    }
}
