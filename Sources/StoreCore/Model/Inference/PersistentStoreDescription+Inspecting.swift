import Foundation

extension PersistentStoreDescription {
    /// A read-only description for opening a store with an ``InferredModel``: no migration, and
    /// every save refused.
    ///
    /// For example:
    ///
    /// ```swift
    /// try coordinator.addPersistentStore(with: .inspecting(url, type: .sqlite))
    /// ```
    public static func inspecting(_ url: URL, type: PersistentStoreType) -> PersistentStoreDescription {
        var description = PersistentStoreDescription(type: type, url: url)
        description.isReadOnly = true
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        return description
    }
}
