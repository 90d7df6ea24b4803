import Foundation

/// The identity of a managed object: which store holds it, its entity and its key there.
///
/// An object inserted into a context has a temporary ID until it is saved (or until
/// ``ManagedObjectContext/obtainPermanentIDs(for:)`` is called); from then on its ID is
/// permanent and its ``uriRepresentation`` can be stored elsewhere and turned back into an
/// ID with ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``.
///
/// IDs are values: `Sendable`, `Hashable`, safe to pass between contexts and threads.
///
/// For example:
///
/// ```swift
/// let id = post.objectID
/// let url = id.uriRepresentation     // x-coredata://<store UUID>/Post/p1
/// let again = coordinator.managedObjectID(forURIRepresentation: url)   // == id
/// ```
public struct ManagedObjectID: Sendable, Hashable {
    /// The name of the object's entity.
    public let entityName: String
    /// The identifier of the store that holds the object; `nil` while the ID is temporary.
    public let storeIdentifier: String?
    let key: Key

    enum Key: Sendable, Hashable {
        case temporary(UUID)
        case permanent(Int64)
    }

    private init(entityName: String, storeIdentifier: String?, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    init(temporaryFor entityName: String) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.key = .temporary(UUID())
    }

    /// Creates a permanent ID. Stores call this when they assign keys to new objects.
    ///
    /// - Parameters:
    ///   - entityName: The object's entity.
    ///   - storeIdentifier: The identifier of the store that holds it.
    ///   - primaryKey: The object's key in that store (positive).
    public init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = .permanent(primaryKey)
    }

    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The object's key in its store, or `nil` for a temporary ID.
    public var primaryKey: Int64? {
        if case .permanent(let pk) = key { return pk }
        return nil
    }

    /// A URL naming the object, `x-coredata://<store>/<Entity>/p<key>` (temporary IDs:
    /// `x-coredata:///<Entity>/t<UUID>`), as in Core Data.
    public var uriRepresentation: URL {
        var components = URLComponents()
        components.scheme = "x-coredata"
        switch key {
        case .temporary(let uuid):
            components.host = ""
            components.path = "/\(entityName)/t\(uuid.uuidString)"
        case .permanent(let pk):
            components.host = storeIdentifier ?? ""
            components.path = "/\(entityName)/p\(pk)"
        }
        // URLComponents only fails on malformed pieces; entity names are validated identifiers.
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// Parses a URI made by ``uriRepresentation``; `nil` when it is not one.
    public init?(uriRepresentation url: URL) {
        guard url.scheme == "x-coredata" else { return nil }
        let parts = url.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, let marker = parts[1].first else { return nil }
        let entityName = String(parts[0])
        let rest = String(parts[1].dropFirst())
        let host = url.host ?? ""
        switch marker {
        case "p":
            guard !host.isEmpty, let pk = Int64(rest), pk > 0 else { return nil }
            self.init(entityName: entityName, storeIdentifier: host, primaryKey: pk)
        case "t":
            guard host.isEmpty, let uuid = UUID(uuidString: rest) else { return nil }
            self.init(entityName: entityName, storeIdentifier: nil, key: .temporary(uuid))
        default:
            return nil
        }
    }
}

extension ManagedObjectID: CustomStringConvertible {
    public var description: String { uriRepresentation.absoluteString }
}
