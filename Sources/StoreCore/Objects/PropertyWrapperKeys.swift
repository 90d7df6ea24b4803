import Synchronization

/// What the model checks about a typed property declared on a subclass.
protocol ManagedPropertyDeclaration {
    var explicitKey: String? { get }
    /// Why the declaration does not fit the model's property, or `nil` when it does.
    func mismatch(with property: PropertyDescription) -> String?
}

/// A typed property found on a subclass: its key and its declaration.
struct DeclaredManagedProperty {
    let key: String
    let declaration: any ManagedPropertyDeclaration
    func mismatch(with property: PropertyDescription) -> String? { declaration.mismatch(with: property) }
}

/// Derives a typed property's key from its name (`_title` → `title`), once per property.
enum PropertyWrapperKeys {
    /// Key path literals are instantiated once per use site, so the same object comes back on
    /// every access; the entry keeps it alive so that its identifier cannot be reused. Key paths
    /// are immutable, so sharing them between threads is safe.
    private struct Entry: @unchecked Sendable {
        let keyPath: AnyKeyPath
        let key: String
    }

    private static let cache = Mutex<[ObjectIdentifier: Entry]>([:])

    static func key(for storageKeyPath: AnyKeyPath) -> String {
        let id = ObjectIdentifier(storageKeyPath)
        if let entry = cache.withLock({ $0[id] }), entry.keyPath === storageKeyPath { return entry.key }
        // `\Post._title` → "title"
        let text = String(describing: storageKeyPath)
        var name = text.split(separator: ".").last.map(String.init) ?? text
        if name.hasPrefix("_") { name.removeFirst() }
        cache.withLock { $0[id] = Entry(keyPath: storageKeyPath, key: name) }
        return name
    }
}

/// Each typed property declaration's index in one entity, found once per declaration: the
/// storage key path of an `@Attribute` or `@Relationship` is one object per declaration, so its
/// identity is the cache key.
final class TypedPropertyIndexes: Sendable {
    private struct Entry: @unchecked Sendable {
        // @unchecked: key paths are immutable; kept so that the identifier is never reused.
        let keyPath: AnyKeyPath
        let index: Int?
    }
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    /// The index of the property a declaration names in `entity` (`nil`: the entity has none).
    @inline(__always)
    func index(for storageKeyPath: AnyKeyPath, explicitKey: @autoclosure () -> String?, in entity: EntityDescription) -> Int? {
        let id = ObjectIdentifier(storageKeyPath)
        if let entry = entries.withLock({ $0[id] }), entry.keyPath === storageKeyPath { return entry.index }
        let key = explicitKey() ?? PropertyWrapperKeys.key(for: storageKeyPath)
        let index = entity.propertyIndexes[key]
        entries.withLock { $0[id] = Entry(keyPath: storageKeyPath, index: index) }
        return index
    }
}

extension ManagedObject {
    /// The typed properties a subclass declares, found by reflecting a detached instance.
    class func declaredManagedProperties(for entity: EntityDescription) -> [DeclaredManagedProperty] {
        guard self != ManagedObject.self else { return [] }
        let prototype = self.init(entity: entity, insertInto: nil)
        var result: [DeclaredManagedProperty] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            for child in current.children {
                guard let declaration = child.value as? any ManagedPropertyDeclaration, var label = child.label else { continue }
                if label.hasPrefix("_") { label.removeFirst() }
                result.append(DeclaredManagedProperty(key: declaration.explicitKey ?? label, declaration: declaration))
            }
            mirror = current.superclassMirror
        }
        return result
    }
}
