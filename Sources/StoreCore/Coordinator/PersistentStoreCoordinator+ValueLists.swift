import Foundation

extension PersistentStoreCoordinator {
    /// The rows of `entityName` (and its sub-entities) whose `key` holds one of `values`, asked of
    /// the one store holding the entity when it takes the values as they are
    /// (``ValueListFetching``); `nil` otherwise — several stores, or one that evaluates
    /// predicates only — and the caller fetches with the predicate `key IN {values…}`.
    ///
    /// For example (a save looking up a constraint's stored rows):
    ///
    /// ```swift
    /// if let rows = try coordinator.snapshots(ofEntity: "Item", whose: "code", isAmong: values) { … }
    /// ```
    func snapshots(ofEntity entityName: String, whose key: String, isAmong values: [StoreValue]) throws -> [StoreSnapshot]? {
        _ = try managedObjectModel.entity(named: entityName)
        let stores = stores(holding: entityName)
        guard stores.count == 1, let store = stores[0] as? any ValueListFetching else { return nil }
        return try store.snapshots(ofEntity: entityName, whose: key, isAmong: values)
    }
}
