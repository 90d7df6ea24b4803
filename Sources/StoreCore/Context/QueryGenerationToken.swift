import Foundation
import Synchronization

/// Names the committed state a context reads: Core Data's `NSQueryGenerationToken`.
///
/// ``current`` asks for the latest committed state, pinned; ``unpinned`` (or `nil`) for no pin
/// (every fetch and fault reads the latest); a context's ``ManagedObjectContext/queryGenerationToken``
/// names its pinned generation and can be handed to another context of the same coordinator,
/// which then reads the same state.
///
/// For example:
///
/// ```swift
/// try context.setQueryGenerationFrom(.current)
/// let a = try context.fetch(orders)        // these two fetches read the same committed state,
/// let b = try context.count(for: lines)    // whatever other contexts save in between
/// try context.setQueryGenerationFrom(.unpinned)
/// ```
public struct QueryGenerationToken: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable { case current, unpinned, pinned(UInt64) }
    let kind: Kind
    let generation: QueryGeneration?

    /// The latest committed state, pinned when a context is set to it.
    public static let current = QueryGenerationToken(kind: .current, generation: nil)
    /// No pinned state: every read sees the latest committed state.
    public static let unpinned = QueryGenerationToken(kind: .unpinned, generation: nil)

    public static func == (a: Self, b: Self) -> Bool { a.kind == b.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    public var description: String {
        switch kind {
        case .current: "QueryGenerationToken.current"
        case .unpinned: "QueryGenerationToken.unpinned"
        case .pinned(let number): "QueryGenerationToken(\(number))"
        }
    }
}

/// One pinned generation: a read view of each store of a coordinator, taken at one moment. The
/// views are released with the generation, when no context or token refers to it any more.
final class QueryGeneration: Sendable {
    let number: UInt64
    let views: [String: any StoreReading]
    private static let numbers = Atomic<UInt64>(0)

    /// Pins every store of the coordinator.
    ///
    /// - Throws: ``StoreError`` (`queryGenerationUnavailable`) when a store cannot pin one.
    init(pinning coordinator: PersistentStoreCoordinator) throws {
        var views: [String: any StoreReading] = [:]
        for store in coordinator.persistentStores {
            guard let pinnable = store as? any QueryGenerationStore else {
                throw StoreError(.queryGenerationUnavailable, url: store.url, "a \(store.type) store cannot pin a query generation")
            }
            views[store.identifier] = try pinnable.pinQueryGeneration()
        }
        self.views = views
        number = Self.numbers.add(1, ordering: .relaxed).newValue
    }

    var token: QueryGenerationToken { QueryGenerationToken(kind: .pinned(number), generation: self) }
}
