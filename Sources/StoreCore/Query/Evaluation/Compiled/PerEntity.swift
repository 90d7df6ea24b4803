/// Something compiled once for each entity that sources are laid out by: a fetch meets the
/// fetched entity and, when it includes them, its sub-entities, each with its own property
/// indexes. The entity met last is found first.
///
/// For example:
///
/// ```swift
/// var tests = PerEntity<Test>()
/// let test = tests.value(for: snapshot.entity) { entity in compiler(entity).compile(predicate) }
/// ```
struct PerEntity<Value> {
    private var entries: [(entity: EntityDescription?, value: Value)] = []

    /// The value for `entity` when it is the entity met last.
    @inline(__always)
    func latest(for entity: EntityDescription?) -> Value? {
        if let last = entries.last, last.entity === entity { return last.value }
        return nil
    }

    /// The value for the entity of identity `identity` when it is the entity met last.
    @inline(__always)
    func latest(forIdentity identity: ObjectIdentifier?) -> Value? {
        guard let last = entries.last, last.entity.map(ObjectIdentifier.init) == identity else { return nil }
        return last.value
    }

    /// The value for `entity`, made by `make` the first time the entity is met.
    ///
    /// Complexity: O(1) when `entity` is the one met last, else O(number of entities met).
    @inline(__always)
    mutating func value(for entity: EntityDescription?, make: (EntityDescription?) throws -> Value) rethrows -> Value {
        if let last = entries.last, last.entity === entity { return last.value }
        return try lookUp(entity, make: make)
    }

    private mutating func lookUp(_ entity: EntityDescription?, make: (EntityDescription?) throws -> Value) rethrows -> Value {
        if let known = entries.firstIndex(where: { $0.entity === entity }) {
            let entry = entries.remove(at: known)
            entries.append(entry)
            return entry.value
        }
        let value = try make(entity)
        entries.append((entity, value))
        return value
    }
}
