import Foundation
import Synchronization

/// Finds the model key a Swift key path names (`\Post.title` → `"title"`), for typed predicates,
/// sorts and builder terms.
///
/// A key path to an `@Attribute` or `@Relationship` property is a computed key path with no name
/// Swift will tell, so the key path is read once on a blank probe object of its root class: the
/// property's accessor reports the declaration it went through. A relationship's accessor
/// reports its own key path, and the key is accepted when that key path is the one being
/// resolved. An attribute's accessor reports its Swift type alone (making its key path would
/// cost every read of every object), so for an attribute — and for a subclass reaching an
/// inherited relationship (`\Reply.post`), whose key path is its own — the probe checks what
/// the key path does for a few distinctive values: it reads exactly what the declaration
/// holds, and (for an attribute) writing through it writes exactly that to the declaration. A
/// key path to anything else — a stored or computed property of the class (`var shout: String {
/// title.uppercased() }` reads `title`, but is not it; `var sameTitle: String { title }` cannot be
/// written), a chain of properties — names no model key. Results are kept per key path.
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
            let access: TypedAccess
            /// What a setter wrote (attributes only).
            var written: StoreValue?

            var isRead: Bool {
                if case .other = access { return false }
                return true
            }
        }
        private(set) var accesses: [Access] = []
        /// The value every attribute of the probe object reads (`.null` by default).
        var sentinel: StoreValue?
        func record(key: String, access: TypedAccess) { accesses.append(Access(key: key, access: access)) }
        /// Records what an attribute's setter wrote, on the access just recorded.
        func recordWritten(_ value: StoreValue) {
            guard !accesses.isEmpty else { return }
            accesses[accesses.count - 1].written = value
        }
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

    /// Reads `keyPath` on a blank object of its root class; `nil` when the root is not a
    /// ``ManagedObject`` subclass.
    private static func read(_ keyPath: AnyKeyPath, sentinel: StoreValue? = nil) -> (value: Any?, probe: Probe, objectID: ManagedObjectID)? {
        guard let objectClass = type(of: keyPath).rootType as? ManagedObject.Type else { return nil }
        let entity = EntityDescription("_KeyPathProbe", class: objectClass)
        let probe = Probe()
        probe.sentinel = sentinel
        entity.typedPropertyIndexes.probe = probe
        let object = objectClass.init(entity: entity, insertInto: nil)
        return (object[keyPath: keyPath], probe, object.objectID)
    }

    private static func probe(_ keyPath: AnyKeyPath) -> Resolution? {
        let keyPathType = type(of: keyPath)
        guard let objectClass = keyPathType.rootType as? ManagedObject.Type, let (value, probe, objectID) = read(keyPath) else { return nil }
        if let id = value as? ManagedObjectID, id == objectID, probe.accesses.isEmpty { return .objectID }
        let reads = probe.accesses.filter(\.isRead)
        guard reads.count == 1, let access = reads.first else { return nil }
        let wrapped: AnyKeyPath
        switch access.access {
        case .relationshipRead(let keyPath): wrapped = keyPath
        case .attributeRead(let valueType):
            // Read exactly as the attribute holds it, and written exactly as given.
            guard valueType == keyPathType.valueType, probe.accesses.count == 1, readsDeclarationUnchanged(keyPath),
                writesDeclarationUnchanged(keyPath, key: access.key)
            else { return nil }
            return .key(access.key)
        case .other: return nil
        }
        if wrapped == keyPath { return .key(access.key) }
        // The same relationship reached through a subclass: `\Reply.author` for Post's `author` —
        // a strict subclass (on the declaring class itself the key paths would be equal), the
        // same value type, nothing else read, and the value handed back unchanged.
        let wrappedType = type(of: wrapped)
        guard let declaringClass = wrappedType.rootType as? ManagedObject.Type, objectClass != declaringClass,
            objectClass.isSubclassOrSame(of: declaringClass), wrappedType.valueType == keyPathType.valueType,
            probe.accesses.count == 1, readsDeclarationUnchanged(keyPath)
        else { return nil }
        return .key(access.key)
    }

    /// Values an attribute's probe hands out to tell a key path that reads the attribute as it
    /// is from one that computes something from it: each changes under the usual
    /// transformations (case, sign, arithmetic, negation, trimming).
    private static let sentinels: [StoreValue] = [
        .string(" Probe x "), .string("\u{2}q-R"), .integer(7_919), .integer(-97), .double(2.5), .double(-7.25),
        .boolean(true), .boolean(false), .date(Date(timeIntervalSinceReferenceDate: 123_456.5)),
        .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))), .data(Data([1, 2, 3])),
        .decimal(Decimal(string: "12.5") ?? 12), .uri(URL(fileURLWithPath: "/probe")),
    ]

    /// Whether `keyPath`, which reads one attribute declaration, returns exactly what that
    /// attribute holds for each sentinel its value type can hold (a relationship, or a type no
    /// sentinel fits, cannot be checked this way and passes).
    private static func readsDeclarationUnchanged(_ keyPath: AnyKeyPath) -> Bool {
        guard let valueType = type(of: keyPath).valueType as? any StoreValueConvertible.Type else { return true }
        for sentinel in sentinels {
            guard let expected = valueType.init(storeValue: sentinel)?.storeValue else { continue }
            guard let (value, _, _) = read(keyPath, sentinel: sentinel), let read = value as? any StoreValueConvertible,
                read.storeValue == expected
            else { return false }
        }
        return true
    }

    /// Whether writing through `keyPath` writes exactly the given value to the attribute `key`
    /// and nothing else, for each sentinel its value type can hold (a read-only key path does not).
    private static func writesDeclarationUnchanged(_ keyPath: AnyKeyPath, key: String) -> Bool {
        guard let writable = keyPath as? any ProbeWritableKeyPath,
            let objectClass = type(of: keyPath).rootType as? ManagedObject.Type,
            let valueType = type(of: keyPath).valueType as? any StoreValueConvertible.Type
        else { return false }
        for sentinel in sentinels {
            guard let expected = valueType.init(storeValue: sentinel)?.storeValue else { continue }
            let entity = EntityDescription("_KeyPathProbe", class: objectClass)
            let probe = Probe()
            entity.typedPropertyIndexes.probe = probe
            let object = objectClass.init(entity: entity, insertInto: nil)
            guard writable.write(sentinel, into: object), probe.accesses.count == 1, let access = probe.accesses.first,
                access.key == key, access.written == expected
            else { return false }
        }
        return true
    }

    /// Names a key path that is no model key as well as the platform allows: its description
    /// when that carries names (Linux prints only an address for a computed property), its
    /// root and value types, and what reading it on a blank object went through — so that a
    /// computed property is named by the properties it reads.
    ///
    /// For example, `\Book.shout` (`title.uppercased()`) on Linux: "the key path from Book to
    /// String, a property of Book that reads title but is not it: …".
    static func describe(_ keyPath: AnyKeyPath) -> String {
        let keyPathType = type(of: keyPath)
        let root = String(describing: keyPathType.rootType), value = String(describing: keyPathType.valueType)
        let printed = "\(keyPath)"
        let name = printed.contains("<computed") ? "the key path from \(root) to \(value)" : "key path \(printed) (from \(root) to \(value))"
        guard let (_, probe, _) = read(keyPath) else {
            return name + ", a property of \(root), which is not a ManagedObject subclass (of such values only a collection's count and isEmpty, "
                + "and a string's isEmpty, have a store form)"
        }
        let keys = probe.accesses.map(\.key)
        guard let first = keys.first else {
            return name + ", a property of \(root) that reads no @Attribute or @Relationship property (a Swift property is not in the model)"
        }
        let reads = keys.count == 1 ? first : keys.joined(separator: ", ")
        return name + ", a property of \(root) that reads \(reads) but is not \(keys.count == 1 ? "it" : "one of them")"
            + ": a computed property is not a model key (use \(first) itself)"
    }
}

/// A key path a probe can write through: `write` converts a store value to the key path's
/// value type and sets it on a probe object.
protocol ProbeWritableKeyPath {
    /// Sets `value` through the key path on `object`; false when either does not fit.
    func write(_ value: StoreValue, into object: ManagedObject) -> Bool
}

extension ReferenceWritableKeyPath: ProbeWritableKeyPath where Value: StoreValueConvertible {
    func write(_ value: StoreValue, into object: ManagedObject) -> Bool {
        guard let root = object as? Root, let typed = Value(storeValue: value) else { return false }
        root[keyPath: self] = typed
        return true
    }
}
