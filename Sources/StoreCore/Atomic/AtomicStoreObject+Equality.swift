/// Equality by what the object says, however it is held: two objects are equal when they have
/// the same entity name, key, non-`nil` attribute values and non-empty relationships — a
/// laid-out object equals the same object built by name.
extension AtomicStoreObject: Hashable {
    public static func == (lhs: AtomicStoreObject, rhs: AtomicStoreObject) -> Bool {
        guard lhs.primaryKey == rhs.primaryKey else { return false }
        if lhs.named == nil, rhs.named == nil, let entity = lhs.modelEntity, entity === rhs.modelEntity {
            for (index, kind) in entity.layout.kinds.enumerated() where lhs.values[index] != rhs.values[index] {
                // A to-one's key may be an `.integer` on one side and the target's ID on the other.
                guard kind == .toOne, let key = key(in: lhs.values[index]), key == self.key(in: rhs.values[index]) else { return false }
            }
            return lhs.toManyLists == rhs.toManyLists
        }
        return lhs.entityName == rhs.entityName
            && lhs.attributes.filter { !$0.value.isNull } == rhs.attributes.filter { !$0.value.isNull }
            && lhs.relationships.filter { !$0.value.isEmpty } == rhs.relationships.filter { !$0.value.isEmpty }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
    }
}

extension AtomicStoreObject: CustomStringConvertible {
    /// The entity, key, values and relationships by name, for debugging:
    /// `<AtomicStoreObject Post 7 title="Hello" author=[3]>`.
    public var description: String {
        let values = attributes.filter { !$0.value.isNull }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let keys = relationships.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
            .map { "\($0.key)=[\($0.value.map(String.init).joined(separator: ","))]" }
        return "<AtomicStoreObject \(entityName) \(primaryKey)\((values + keys).map { " " + $0 }.joined())>"
    }
}
