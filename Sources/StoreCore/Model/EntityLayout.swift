/// What the hot paths need to know about an entity's properties, computed once when the model
/// is built: each property's kind by index, which ones a snapshot stores, and the values a new
/// object starts with. Snapshots, objects and stores address properties by these indexes.
///
/// For example:
///
/// ```swift
/// let layout = entity.layout
/// for index in layout.toManyIndexes { print(entity.properties[index].name) }
/// ```
public final class EntityLayout: Sendable {
    /// How a property is held.
    public enum Kind: Sendable, Hashable {
        /// A stored attribute.
        case attribute
        /// A transient attribute (kept by objects, never by stores).
        case transientAttribute
        /// A to-one relationship (a snapshot holds the destination's ID, unless the relationship
        /// is transient: see ``EntityLayout/transientRelationshipIndexes``).
        case toOne
        /// A to-many relationship (a snapshot holds the members' IDs apart from the values, unless
        /// the relationship is transient).
        case toMany
    }

    /// Each property's kind, by index.
    public let kinds: [Kind]
    /// The stored attributes and to-one relationships: what a complete snapshot holds values for.
    public let storedValues: PropertyMask
    /// The indexes of the to-many relationships.
    public let toManyIndexes: [Int]
    /// The indexes of the to-one relationships.
    public let toOneIndexes: [Int]
    /// The indexes of the transient attributes.
    public let transientIndexes: [Int]
    /// The indexes of the transient relationships (to-one and to-many): objects hold them in
    /// memory; snapshots and stores never carry them.
    public let transientRelationshipIndexes: [Int]
    /// Every transient property, attributes and relationships.
    public let transientProperties: PropertyMask
    /// The value each property starts with in a new object: attributes' defaults, `.null` elsewhere.
    public let initialValues: StoreValues
    /// `.null` for every property: where a snapshot read from a store starts.
    public let nullValues: StoreValues
    /// Where each property's value sits in the entity's ``StoreValues``.
    package let valueLayout: StoreValueLayout

    /// New values, all `.null` and unshared, for a row being read (no copy of ``nullValues``
    /// for the first write to make).
    package func makeNullValues() -> StoreValues {
        StoreValues(layout: valueLayout)
    }
    /// What a fault holds: `.null` for stored properties, the default for transient attributes
    /// (which loading the fault keeps).
    let faultValues: StoreValues
    /// Each attribute's type by index (`nil` for relationships), for coercing values set by type.
    let attributeTypes: [AttributeType?]

    /// The number of properties.
    public var count: Int { kinds.count }
    /// Whether the entity has any relationship.
    public var hasRelationships: Bool { !toManyIndexes.isEmpty || !toOneIndexes.isEmpty }

    init(properties: [PropertyDescription]) {
        var kinds: [Kind] = []
        var stored = PropertyMask()
        var toMany: [Int] = [], toOne: [Int] = [], transient: [Int] = [], transientRelationships: [Int] = []
        var transientMask = PropertyMask()
        var initialByIndex: [StoreValue] = []
        var slotKinds: [StoreValueLayout.SlotKind] = []
        var types: [AttributeType?] = []
        for (index, property) in properties.enumerated() {
            types.append((property as? AttributeDescription)?.attributeType)
            if property.isTransient { transientMask.insert(index) }
            if let attribute = property as? AttributeDescription {
                kinds.append(attribute.isTransient ? .transientAttribute : .attribute)
                if attribute.isTransient { transient.append(index) } else { stored.insert(index) }
                initialByIndex.append(attribute.defaultValue)
                slotKinds.append(StoreValueLayout.SlotKind(attribute.attributeType))
            } else if let relationship = property as? RelationshipDescription, relationship.isToMany {
                kinds.append(.toMany)
                toMany.append(index)
                if property.isTransient { transientRelationships.append(index) }
                initialByIndex.append(.null)
                slotKinds.append(.empty)
            } else {
                kinds.append(.toOne)
                if property.isTransient { transientRelationships.append(index) } else { stored.insert(index) }
                toOne.append(index)
                initialByIndex.append(.null)
                slotKinds.append(.objectID)
            }
        }
        self.kinds = kinds
        self.storedValues = stored
        self.toManyIndexes = toMany
        self.toOneIndexes = toOne
        self.transientIndexes = transient
        self.transientRelationshipIndexes = transientRelationships
        self.transientProperties = transientMask
        let valueLayout = StoreValueLayout(slotKinds: slotKinds)
        self.valueLayout = valueLayout
        var initial = StoreValues(layout: valueLayout)
        for (index, value) in initialByIndex.enumerated() where !value.isNull { initial[index] = value }
        self.initialValues = initial
        self.nullValues = StoreValues(layout: valueLayout)
        var faultValues = nullValues
        for index in transient { faultValues[index] = initial[index] }
        self.faultValues = faultValues
        self.attributeTypes = types
    }

    static let empty = EntityLayout(properties: [])
}
