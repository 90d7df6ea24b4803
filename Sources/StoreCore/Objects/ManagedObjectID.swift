import Foundation
import Synchronization

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
    /// The entity and store an ID belongs to, shared by every ID of that entity in that store so
    /// that an ID is one reference and one integer (16 bytes), and hashes without touching
    /// strings. Temporary IDs have spaces of their own (no store), so a key is temporary or
    /// permanent by its space.
    final class Space: Sendable {
        let entityName: String
        let storeIdentifier: String?
        let isTemporary: Bool
        let hash: Int

        init(entityName: String, storeIdentifier: String?, isTemporary: Bool = false) {
            self.entityName = entityName
            self.storeIdentifier = storeIdentifier
            self.isTemporary = isTemporary
            var hasher = Hasher()
            hasher.combine(entityName)
            hasher.combine(storeIdentifier)
            hasher.combine(isTemporary)
            self.hash = hasher.finalize()
        }

        func matches(_ other: Space) -> Bool {
            self === other || (hash == other.hash && isTemporary == other.isTemporary
                && entityName == other.entityName && storeIdentifier == other.storeIdentifier)
        }
    }

    let space: Space
    /// The primary key (permanent IDs), or a process-wide sequence number never reused while the
    /// process runs (temporary IDs).
    let key: Int64

    /// The name of the object's entity.
    public var entityName: String { space.entityName }
    /// The identifier of the store that holds the object; `nil` while the ID is temporary.
    public var storeIdentifier: String? { space.storeIdentifier }

    private static let temporaryCounter = Atomic<Int64>(0)
    /// Distinguishes this process's temporary IDs in URIs from another process's.
    private static let processToken = UUID().uuidString

    init(space: Space, key: Int64) {
        self.space = space
        self.key = key
    }

    /// A new temporary ID in `space` (whose store identifier is `nil`).
    init(temporaryIn space: Space) {
        self.init(space: space, key: Self.temporaryCounter.add(1, ordering: .relaxed).newValue)
    }

    /// Creates a permanent ID. Stores call this when they assign keys to new objects.
    ///
    /// - Parameters:
    ///   - entityName: The object's entity.
    ///   - storeIdentifier: The identifier of the store that holds it.
    ///   - primaryKey: The object's key in that store (positive).
    public init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.init(space: Space(entityName: entityName, storeIdentifier: storeIdentifier), key: primaryKey)
    }

    /// A permanent ID for another object of the same entity and store as `other` — cheaper than
    /// ``init(entityName:storeIdentifier:primaryKey:)`` when a store makes many IDs.
    public init(primaryKey: Int64, sameEntityAndStoreAs other: ManagedObjectID) {
        let space = other.space.isTemporary ? Space(entityName: other.entityName, storeIdentifier: nil) : other.space
        self.init(space: space, key: primaryKey)
    }

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.key == rhs.key && lhs.space.matches(rhs.space)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashWord)
    }

    /// The hash a `Set` or `Dictionary` uses, mixed without a `Hasher`: every save notification
    /// carries sets of the saved objects' IDs, and the `Hasher` made for each ID was most of
    /// their cost. Equal IDs give equal words (their spaces match, so their precomputed hashes
    /// do), and the word is scrambled with the table's seed so that its low bits are well spread.
    public func _rawHashValue(seed: Int) -> Int {
        HashMixing.mix(hashWord, seed: seed)
    }

    /// One word: the space's precomputed hash mixed with the key.
    private var hashWord: Int { space.hash &+ Int(truncatingIfNeeded: key) &* 0x1E37_79B9_7F4A_7C15 }

    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool { space.isTemporary }

    /// The object's key in its store, or `nil` for a temporary ID.
    public var primaryKey: Int64? { space.isTemporary ? nil : key }

    /// A URL naming the object, `x-coredata://<store>/<Entity>/p<key>` (temporary IDs:
    /// `x-coredata:///<Entity>/t<process UUID>-<n>`), as in Core Data.
    public var uriRepresentation: URL {
        var components = URLComponents()
        components.scheme = "x-coredata"
        if space.isTemporary {
            components.host = ""
            components.path = "/\(entityName)/t\(Self.processToken)-\(key)"
        } else {
            components.host = storeIdentifier ?? ""
            components.path = "/\(entityName)/p\(key)"
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
            // Temporary IDs only mean something in the process that made them.
            guard host.isEmpty, rest.hasPrefix(Self.processToken + "-"),
                let number = Int64(rest.dropFirst(Self.processToken.count + 1)), number > 0
            else { return nil }
            self.init(space: Space(entityName: entityName, storeIdentifier: nil, isTemporary: true), key: number)
        default:
            return nil
        }
    }
}

extension ManagedObjectID: CustomStringConvertible {
    public var description: String { uriRepresentation.absoluteString }
}

extension ManagedObjectID: Codable {
    /// Encodes the ID as its URI (``uriRepresentation``), so IDs can be captured by a
    /// `#Predicate` and sent between processes.
    ///
    /// For example: `try JSONEncoder().encode(post.objectID)` gives `"x-coredata://…/Post/p1"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uriRepresentation.absoluteString)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let url = URL(string: text), let id = ManagedObjectID(uriRepresentation: url) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a managed object ID's URI")
        }
        self = id
    }
}
