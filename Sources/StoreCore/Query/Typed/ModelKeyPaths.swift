import Synchronization

/// Finds the model key a Swift key path names (`\Post.title` → `"title"`), for typed predicates,
/// sorts and builder terms.
///
/// A key path to an `@Attribute` or `@Relationship` property is a computed key path with no name
/// Swift will tell, so the key path is read once on a blank probe object of its root class: the
/// property's accessor reports the declaration it went through, with its own key path, and the
/// key is accepted only when that key path is the one being resolved (or the same declaration
/// reached through a subclass). A key path to anything else — a stored or computed property of
/// the class, a chain of properties — names no model key. Results are kept per key path.
///
/// For example:
///
/// ```swift
/// ModelKeyPaths.key(for: \Post.title)        // .key("title")
/// ModelKeyPaths.key(for: \Post.objectID)     // .objectID: the object itself
/// ModelKeyPaths.key(for: \Post.author?.name) // nil: follow chains one property at a time
/// ```
enum ModelKeyPaths {
    /// What a key path names.
    enum Resolution: Sendable {
        /// A property's model key.
        case key(String)
        /// The object's ``ManagedObject/objectID``: the object itself, in a query.
        case objectID
    }

    /// What a probe object's accessors report while one key path is read.
    final class Probe: @unchecked Sendable {
        // @unchecked: a probe belongs to one resolution on one thread and is dropped after it.
        struct Access {
            let key: String
            let wrapped: AnyKeyPath?
        }
        private(set) var accesses: [Access] = []
        func record(key: String, wrapped: AnyKeyPath?) { accesses.append(Access(key: key, wrapped: wrapped)) }
    }

    private struct CacheKey: Hashable, @unchecked Sendable {
        // @unchecked: key paths are immutable.
        let keyPath: AnyKeyPath
    }

    private static let cache = Mutex<[CacheKey: Resolution?]>([:])

    /// The model key `keyPath` names, or `nil` when it is not one `@Attribute`/`@Relationship`
    /// property of a ``ManagedObject`` subclass.
    static func key(for keyPath: AnyKeyPath) -> String? {
        guard case .key(let key) = resolve(keyPath) else { return nil }
        return key
    }

    /// What `keyPath` names: a model key, the object's ID, or nothing a query can read.
    static func resolve(_ keyPath: AnyKeyPath) -> Resolution? {
        if let known = cache.withLock({ $0[CacheKey(keyPath: keyPath)] }) { return known }
        let key = probe(keyPath)
        cache.withLock { $0[CacheKey(keyPath: keyPath)] = key }
        return key
    }

    private static func probe(_ keyPath: AnyKeyPath) -> Resolution? {
        let keyPathType = type(of: keyPath)
        guard let objectClass = keyPathType.rootType as? ManagedObject.Type else { return nil }
        let entity = EntityDescription("_KeyPathProbe", class: objectClass)
        let probe = Probe()
        entity.typedPropertyIndexes.probe = probe
        let object = objectClass.init(entity: entity, insertInto: nil)
        let value = object[keyPath: keyPath]
        if let id = value as? ManagedObjectID, id == object.objectID, probe.accesses.isEmpty { return .objectID }
        let declared = probe.accesses.filter { $0.wrapped != nil }
        guard declared.count == 1, let access = declared.first, let wrapped = access.wrapped else { return nil }
        if wrapped == keyPath { return .key(access.key) }
        // The same declaration reached through a subclass: `\Reply.title` for Post's `title`.
        let wrappedType = type(of: wrapped)
        guard let declaringClass = wrappedType.rootType as? ManagedObject.Type,
            objectClass.isSubclassOrSame(of: declaringClass), wrappedType.valueType == keyPathType.valueType,
            probe.accesses.count == 1
        else { return nil }
        return .key(access.key)
    }
}
