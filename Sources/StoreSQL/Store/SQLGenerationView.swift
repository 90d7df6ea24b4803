import Foundation
import StoreCore

/// A SQL store's pinned query generation: the store's own reads, each run inside
/// ``SQLStore/reading(pinnedTo:_:)`` so that they go to the generation's connection, whose open
/// transaction sees one moment of the store.
///
/// For example, a driver's `pinQueryGeneration()`:
///
/// ```swift
/// return SQLGenerationView(store: self, pin: try pool.pinReader())
/// ```
package final class SQLGenerationView<Store: SQLStore>: StoreReading {
    let store: Store
    let pin: Store.GenerationPin

    package init(store: Store, pin: Store.GenerationPin) {
        self.store = store
        self.pin = pin
    }

    package var identifier: String { store.identifier }

    package func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try store.reading(pinnedTo: pin) { try store.execute(request) } }
    package func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? { try store.reading(pinnedTo: pin) { try store.snapshot(for: objectID) } }
    package func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        try store.reading(pinnedTo: pin) { try store.snapshots(for: objectIDs) }
    }
    package func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        try store.reading(pinnedTo: pin) { try store.objectIDs(forRelationship: name, of: objectID) }
    }
}
