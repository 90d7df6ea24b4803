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
/// identity is the key.
///
/// Reads take no lock: the table is a fixed set of write-once slots (open addressing on the key
/// path's identity), so an access is one hash and an atomic load. A class declaring more typed
/// properties than there are slots keeps the rest in a locked dictionary.
final class TypedPropertyIndexes: Sendable {
    /// One declaration's index. Holding the key path keeps its identifier from being reused; key
    /// paths are immutable, so sharing them between threads is safe.
    private final class Entry: @unchecked Sendable {
        let keyPath: AnyKeyPath
        let index: Int?
        init(keyPath: AnyKeyPath, index: Int?) {
            self.keyPath = keyPath
            self.index = index
        }
    }

    private static let slotCount = 64
    private let slots: InlineArray<64, AtomicLazyReference<Entry>>
    private let overflow = Mutex<[ObjectIdentifier: Entry]>([:])

    init() { slots = InlineArray { _ in AtomicLazyReference() } }

    /// The index of the property a declaration names in `entity` (`nil`: the entity has none).
    @inline(__always)
    func index(for storageKeyPath: AnyKeyPath, explicitKey: @autoclosure () -> String?, in entity: EntityDescription) -> Int? {
        let start = Self.slot(of: storageKeyPath)
        var slot = start
        repeat {
            guard let entry = slots[slot].load() else { break }
            if entry.keyPath === storageKeyPath { return entry.index }
            slot = (slot + 1) & (Self.slotCount - 1)
        } while slot != start
        return resolve(storageKeyPath, key: explicitKey() ?? PropertyWrapperKeys.key(for: storageKeyPath), in: entity)
    }

    /// Looks the declaration up by name and records it in the first free slot.
    private func resolve(_ storageKeyPath: AnyKeyPath, key: String, in entity: EntityDescription) -> Int? {
        let entry = Entry(keyPath: storageKeyPath, index: entity.propertyIndexes[key])
        let start = Self.slot(of: storageKeyPath)
        var slot = start
        repeat {
            let stored = slots[slot].storeIfNil(entry)
            if stored.keyPath === storageKeyPath { return stored.index }
            slot = (slot + 1) & (Self.slotCount - 1)
        } while slot != start
        let id = ObjectIdentifier(storageKeyPath)
        return overflow.withLock { table in
            if let known = table[id], known.keyPath === storageKeyPath { return known.index }
            table[id] = entry
            return entry.index
        }
    }

    private static func slot(of keyPath: AnyKeyPath) -> Int {
        // Objects are 16-byte aligned: the low bits carry no information.
        let address = UInt(bitPattern: ObjectIdentifier(keyPath))
        return Int(truncatingIfNeeded: (address >> 4) ^ (address >> 10)) & (slotCount - 1)
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
