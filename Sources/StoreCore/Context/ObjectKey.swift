/// An object's identity as a dictionary key, hashed by mixing its address (``HashMixing``)
/// rather than through a `Hasher`: the context's pending changes are keyed by it, and every
/// insertion and first change of an object adds one.
///
/// For example (inside StoreCore):
///
/// ```swift
/// pendingChanges.inserted[ObjectKey(object)] = object
/// ```
struct ObjectKey: Hashable {
    let identifier: ObjectIdentifier

    init(_ object: ManagedObject) { identifier = ObjectIdentifier(object) }

    func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    func _rawHashValue(seed: Int) -> Int { HashMixing.mix(Int(bitPattern: identifier), seed: seed) }
}
