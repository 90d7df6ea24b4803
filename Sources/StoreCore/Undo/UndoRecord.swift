import Synchronization

/// Whether any context has an undo manager: the property setters' one cheap test before they
/// look for their context's recorder.
enum UndoRecording {
    static let activeContexts = Atomic<Int>(0)

    @inline(__always)
    static var isActive: Bool { activeContexts.load(ordering: .relaxed) > 0 }
}

/// One object as an undo group found it (before its first change in the group) or left it.
struct UndoObjectState {
    /// Whether the object was in the context (inserted, or saved and not deleted).
    var isPresent: Bool
    var isFault: Bool
    var values: StoreValues
    var relations: ContiguousArray<RelationSlot>
    var changedProperties: PropertyMask
    /// The object's saved version then: a save since means its changes are relative to other values.
    var version: Int64

    init(of object: ManagedObject, in context: ManagedObjectContext) {
        isPresent = context.registered[object.objectID] === object && !object.state.isDeleted && object.managedObjectContext === context
        isFault = object.isFault
        values = object.values
        relations = object.relations
        changedProperties = object.changedProperties
        version = object.version
    }

    /// The properties whose values differ between two states of one object.
    func differingProperties(from other: UndoObjectState, layout: EntityLayout) -> PropertyMask {
        var mask = PropertyMask()
        guard !isFault, !other.isFault else { return mask }
        for index in values.indices where index < other.values.count {
            if layout.toManyIndexes.contains(index) || layout.toOneIndexes.contains(index) {
                if !Self.sameRelation(relations[index], other.relations[index], value: values[index], otherValue: other.values[index]) { mask.insert(index) }
            } else if values[index] != other.values[index] {
                mask.insert(index)
            }
        }
        return mask
    }

    private static func sameRelation(_ a: RelationSlot, _ b: RelationSlot, value: StoreValue, otherValue: StoreValue) -> Bool {
        switch (a, b) {
        case (.toOne(let x), .toOne(let y)): x === y
        case (.toMany(let x), .toMany(let y)): x.objects.map(ObjectIdentifier.init) == y.objects.map(ObjectIdentifier.init)
        case (.toManyIDs(let x), .toManyIDs(let y)): x == y
        case (.toManyFault, .toManyFault): true
        case (.unresolved, .unresolved): value == otherValue
        default: false
        }
    }
}

/// The objects one undo group changed, each with the state the group found it in and the
/// state it left it in.
struct UndoRecord {
    struct Entry {
        let object: ManagedObject
        var before: UndoObjectState
        var after: UndoObjectState?
    }
    var entries: [Entry] = []
    var positions: [ObjectIdentifier: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }
}
