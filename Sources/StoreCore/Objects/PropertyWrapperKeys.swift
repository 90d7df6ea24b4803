import Synchronization

/// What the model checks about a typed property declared on a subclass.
protocol ManagedPropertyDeclaration {
    var declaredKey: DeclaredKey { get }
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

/// How a typed declaration is reached, as a key-path probe sees it (see ``ModelKeyPaths``).
enum TypedAccess {
    /// A relationship's getter, with the key path of the property itself (`\Post.comments`).
    case relationshipRead(wrapped: AnyKeyPath)
    /// An attribute's getter, with the attribute's Swift type. No key path of the property is
    /// passed: the compiler makes the key paths a property-wrapper accessor uses on every call
    /// (a retain and a release each, a tenth of reading a fetched object), and one it does not
    /// use is left out.
    case attributeRead(valueType: Any.Type)
    /// A setter, or a relationship's projection (`$comments`).
    case other
}

/// Each typed property declaration's index in one entity, found once per declaration: the
/// storage key path of an `@Attribute` or `@Relationship` is one object per declaration, so its
/// address is the key.
///
/// Reads take no lock: the table is a fixed set of write-once slots (open addressing on the key
/// path's address), so an access is a few atomic loads. Each slot holds the address and the
/// index + 1 (0: the entity has no such property); the index is stored before the address is
/// published. A class declaring more typed properties than there are slots keeps the rest in
/// a locked dictionary.
final class TypedPropertyIndexes: @unchecked Sendable {
    // @unchecked: the slots are only touched through atomic operations.
    fileprivate static let slotCount = 64
    /// The slots, for readers (``Slots/cachedIndex(for:)``).
    let slots: Slots
    private var addresses: UnsafeMutablePointer<Atomic<Int>> { slots.addresses }
    private var indexes: UnsafeMutablePointer<Atomic<Int>> { slots.indexes }
    private let writers = Mutex(Recorded())
    /// Set on a probe entity's table only (see ``ModelKeyPaths``): told of every declaration
    /// read through it.
    var probe: ModelKeyPaths.Probe?

    /// What writers keep: every recorded key path (alive, so that no address is reused), and the
    /// declarations that found no free slot.
    private struct Recorded: @unchecked Sendable {
        // @unchecked: key paths are immutable.
        var keyPaths: [AnyKeyPath] = []
        var overflow: [ObjectIdentifier: Int?] = [:]
    }

    init() {
        slots = Slots(addresses: .allocate(capacity: Self.slotCount), indexes: .allocate(capacity: Self.slotCount))
        for slot in 0..<Self.slotCount {
            (addresses + slot).initialize(to: Atomic(0))
            (indexes + slot).initialize(to: Atomic(0))
        }
    }

    deinit {
        addresses.deinitialize(count: Self.slotCount)
        addresses.deallocate()
        indexes.deinitialize(count: Self.slotCount)
        indexes.deallocate()
    }

    /// The index of the property a declaration names in `entity` (`nil`: the entity has none).
    ///
    /// `access` says how the declaration is reached, which only a probe reads.
    @inline(__always)
    func index(
        for storageKeyPath: AnyKeyPath, access: TypedAccess = .other, explicitKey: @autoclosure () -> String?, in entity: EntityDescription
    ) -> Int? {
        if let known = slots.cachedIndex(for: storageKeyPath) { return known }
        return firstIndex(for: storageKeyPath, access: access, key: explicitKey(), in: entity)
    }

    /// The first use of `storageKeyPath` (or one beyond the table's slots): its key found and
    /// its index recorded.
    @inline(never)
    func firstIndex(for storageKeyPath: AnyKeyPath, access: TypedAccess, key explicitKey: String?, in entity: EntityDescription) -> Int? {
        let key = explicitKey ?? PropertyWrapperKeys.key(for: storageKeyPath)
        if let probe { probe.record(key: key, access: access) }
        return resolve(storageKeyPath, key: key, in: entity)
    }

    /// Looks the declaration up by name and records it in the first free slot.
    private func resolve(_ storageKeyPath: AnyKeyPath, key: String, in entity: EntityDescription) -> Int? {
        let index = entity.propertyIndexes[key]
        let address = Int(bitPattern: ObjectIdentifier(storageKeyPath))
        return writers.withLock { recorded in
            // Writers take the lock, so a slot is claimed by one writer; readers never wait.
            if let known = recorded.overflow[ObjectIdentifier(storageKeyPath)] { return known }
            let start = Self.slot(of: address)
            var slot = start
            repeat {
                let stored = addresses[slot].load(ordering: .relaxed)
                if stored == address { return Self.decode(indexes[slot].load(ordering: .relaxed)) }
                if stored == 0 {
                    recorded.keyPaths.append(storageKeyPath)
                    indexes[slot].store(index.map { $0 + 1 } ?? 0, ordering: .relaxed)
                    addresses[slot].store(address, ordering: .releasing)
                    return index
                }
                slot = (slot + 1) & (Self.slotCount - 1)
            } while slot != start
            recorded.keyPaths.append(storageKeyPath)
            recorded.overflow[ObjectIdentifier(storageKeyPath)] = index
            return index
        }
    }

    fileprivate static func decode(_ stored: Int) -> Int? { stored == 0 ? nil : stored - 1 }

    fileprivate static func slot(of address: Int) -> Int {
        // Objects are 16-byte aligned: the low bits carry no information.
        let bits = UInt(bitPattern: address)
        return Int(truncatingIfNeeded: (bits >> 4) ^ (bits >> 10)) & (slotCount - 1)
    }
}

extension TypedPropertyIndexes {
    /// The table's slot storage: two pointers, which the table owns and frees. A reader copies
    /// them out of the table, so that it holds no reference to the table across the atomic loads
    /// (a retain and a release of the table for each attribute read were 7 % of reading 100,000
    /// fetched objects).
    struct Slots: @unchecked Sendable {
        // @unchecked: the slots are only touched through atomic operations.
        fileprivate let addresses: UnsafeMutablePointer<Atomic<Int>>
        fileprivate let indexes: UnsafeMutablePointer<Atomic<Int>>

        /// The index recorded for `storageKeyPath` (`.some(nil)` when it names no property), or
        /// `nil` before its first use. Valid while the table that owns the slots is alive (an
        /// object's entity holds it).
        @inline(__always)
        func cachedIndex(for storageKeyPath: AnyKeyPath) -> Int?? {
            let address = Int(bitPattern: ObjectIdentifier(storageKeyPath))
            let start = TypedPropertyIndexes.slot(of: address)
            var slot = start
            repeat {
                let stored = addresses[slot].load(ordering: .acquiring)
                if stored == address { return .some(TypedPropertyIndexes.decode(indexes[slot].load(ordering: .relaxed))) }
                if stored == 0 { return nil }
                slot = (slot + 1) & (TypedPropertyIndexes.slotCount - 1)
            } while slot != start
            return nil
        }
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
                result.append(DeclaredManagedProperty(key: declaration.declaredKey.explicitKey ?? label, declaration: declaration))
            }
            mirror = current.superclassMirror
        }
        return result
    }
}
