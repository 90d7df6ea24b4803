import Foundation

/// An object in an object graph: an instance of an entity, owned by one context.
///
/// Read and write its properties by key, or subclass it and declare typed properties with
/// ``Attribute`` and ``Relationship``. A fetched or related object starts as a *fault*: its
/// values are loaded the first time one is read. Objects belong to their context's queue:
/// use them only inside `context.perform` / `performAndWait` (or on the main thread for a
/// main-queue context).
///
/// For example:
///
/// ```swift
/// final class Post: ManagedObject {
///     @Attribute var title: String
///     @Attribute var timestamp: Date?
///     @Relationship var comments: Set<Comment>
/// }
///
/// let post = try Post(context: context)
/// post.title = "Misty Morning"
/// post.comments.insert(comment)            // comment.post is now post
/// try post.setValue(Date(), forKey: "timestamp")
/// ```
open class ManagedObject: FetchRequestResult, Hashable, CustomStringConvertible {
    /// `.managedObject`: fetching a managed-object class returns the objects themselves.
    public static var fetchResultType: FetchResultType { .managedObject }

    /// The name of the entity a subclass represents; by default the class's own name.
    open class var entityName: String { String(describing: self) }

    /// The object's entity.
    public let entity: EntityDescription

    // The state below is read and written for every object a fetch or a save touches. Objects are
    // confined to their context's queue and no accessor holds one of these properties across a
    // call that could reach it again, so the runtime's exclusivity checks (a thread-local access
    // set per read or write: a tenth of a 100,000-object fetch) are turned off for them.

    /// The object's identity (temporary until saved).
    @exclusivity(unchecked) public internal(set) var objectID: ManagedObjectID
    /// The context that owns the object; `nil` once it is deleted and saved, or for a detached object.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextLink.context }
        set { contextLink = newValue?.link ?? .none }
    }
    /// The context's link (see ``ContextLink``): held, so that the context is held weakly once
    /// for all its objects.
    @exclusivity(unchecked) var contextLink = ContextLink.none

    /// Whether the values have not been loaded yet.
    public internal(set) var isFault: Bool {
        get { state.isFault }
        set { state.isFault = newValue }
    }

    /// Attribute values (and to-one destination IDs as read from the store) by property index.
    /// Shared with the snapshot they were read from until the first change.
    @exclusivity(unchecked) var values: StoreValues
    /// Relationship state by property index; empty for an entity without relationships.
    @exclusivity(unchecked) var relations: ContiguousArray<RelationSlot>
    /// Where the values last saved (or loaded) are, for `committedValues(forKeys:)`,
    /// `changedValues()`, saving and merging; a fault fetched with its row holds the row here
    /// until it is first touched.
    @exclusivity(unchecked) var committed: CommittedState = .none
    /// The properties changed since the last save (not tracked for inserted objects).
    @exclusivity(unchecked) var changedProperties = PropertyMask()
    /// The store version the current values were read at.
    @exclusivity(unchecked) var version: Int64 = 0
    /// When a fetch left its row beside a fault, for the context's staleness interval (see
    /// ``FaultRowTime``).
    @exclusivity(unchecked) var committedSnapshotTime = FaultRowTime.distantPast
    /// Where the object sits in its context's list of inserted, updated or deleted objects
    /// (four bytes: see ``LifecycleState``); -1 when in none.
    var changeListPosition: Int {
        get { Int(storedChangeListPosition) }
        set { storedChangeListPosition = Int32(truncatingIfNeeded: newValue) }
    }
    @exclusivity(unchecked) private var storedChangeListPosition: Int32 = -1
    // Last, so that a subclass's declarations (two bytes each) start right after its one byte
    // of flags.
    @exclusivity(unchecked) var state = LifecycleState()

    /// The object's flags, kept in one byte, and what went wrong with it: nine bytes, the last
    /// of the object's own state. Every byte counts: the object and its typed declarations are
    /// one allocation, and the allocator gives it in steps of 16 bytes — with a subclass of ten
    /// `@Attribute`s the object takes 144 bytes of heap where a 117-byte `ManagedObject` (five
    /// `Bool`s) took 160. The object's staleness time and change-list position take four bytes
    /// each for the same reason (a context never lists two billion changed objects: the
    /// objects alone would take hundreds of gigabytes).
    struct LifecycleState {
        /// What went wrong with the object, rare enough to live in a box of its own (copied on
        /// write) so that an object without problems pays one word for them.
        private var problems: ProblemsBox?
        private var flags: UInt8 = 0

        private static let fault: UInt8 = 1
        private static let inserted: UInt8 = 2
        private static let insertionReportedFlag: UInt8 = 4
        private static let updated: UInt8 = 8
        private static let deleted: UInt8 = 16
        private static let pendingUpdate: UInt8 = 32
        /// Set on every object when ``ConcurrencyDebug`` is on: with `fault`, what makes an
        /// access do more than read (one test of the flags per property read, not a test of
        /// the lazily made switch).
        private static let queueChecked: UInt8 = 64

        /// Flags for a new object.
        init() { if ConcurrencyDebug.isEnabled { flags = Self.queueChecked } }

        private func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
        private mutating func set(_ flag: UInt8, _ on: Bool) { flags = on ? flags | flag : flags & ~flag }

        var isFault: Bool {
            get { has(Self.fault) }
            set { set(Self.fault, newValue) }
        }
        /// Whether an access must load the object or check the queue first (see `willAccess`).
        var accessNeedsWork: Bool { has(Self.fault | Self.queueChecked) }
        var isInserted: Bool {
            get { has(Self.inserted) }
            set { set(Self.inserted, newValue) }
        }
        /// Whether an objectsDidChange already reported the insertion: later changes of the
        /// (still inserted) object are then reported as updates.
        var insertionReported: Bool {
            get { has(Self.insertionReportedFlag) }
            set { set(Self.insertionReportedFlag, newValue) }
        }
        var isUpdated: Bool {
            get { has(Self.updated) }
            set { set(Self.updated, newValue) }
        }
        var isDeleted: Bool {
            get { has(Self.deleted) }
            set { set(Self.deleted, newValue) }
        }
        /// Whether the object is listed among its context's updated objects since the last
        /// objects-did-change (`PendingChanges.updated`), so that it is listed once.
        var isPendingUpdate: Bool {
            get { has(Self.pendingUpdate) }
            set { set(Self.pendingUpdate, newValue) }
        }

        private final class ProblemsBox {
            var faultFailure: StoreError?
            var relationshipFailures: [Int: StoreError] = [:]
            var failedSets: [Int: ObjectValidationError] = [:]

            init() {}
            init(copying other: ProblemsBox) {
                faultFailure = other.faultFailure
                relationshipFailures = other.relationshipFailures
                failedSets = other.failedSets
            }
        }

        /// The box to change, made (or copied, when shared) first.
        private mutating func writableProblems() -> ProblemsBox {
            if let box = problems, isKnownUniquelyReferenced(&problems) { return box }
            let box = problems.map(ProblemsBox.init(copying:)) ?? ProblemsBox()
            problems = box
            return box
        }

        /// Why the fault could not be loaded.
        var faultFailure: StoreError? {
            get { problems?.faultFailure }
            set { if newValue != nil || problems != nil { writableProblems().faultFailure = newValue } }
        }
        /// To-many relationships the store could not read, by property index; the next save
        /// reports them and writes nothing (a successful read clears the entry).
        var relationshipFailures: [Int: StoreError] {
            get { problems?.relationshipFailures ?? [:] }
            set { if !newValue.isEmpty || problems != nil { writableProblems().relationshipFailures = newValue } }
        }
        /// Whether ``relationshipFailures`` has an entry (without making an empty dictionary
        /// for the common object without problems).
        var hasRelationshipFailures: Bool { problems.map { !$0.relationshipFailures.isEmpty } ?? false }
        /// Whether ``failedSets`` has an entry (without making an empty dictionary: every
        /// attribute set asks).
        var hasFailedSets: Bool { problems.map { !$0.failedSets.isEmpty } ?? false }
        /// Values a typed setter could not store, by property index; reported by the next save.
        var failedSets: [Int: ObjectValidationError] {
            get { problems?.failedSets ?? [:] }
            set { if !newValue.isEmpty || problems != nil { writableProblems().failedSets = newValue } }
        }
    }

    /// Creates an object of `entity` and inserts it into `context` (pass `nil` to create a
    /// detached object that belongs to no context yet; insert it later with `context.insert`).
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.entity = entity
        self.objectID = ManagedObjectID(temporaryIn: entity.temporaryIDSpace)
        self.values = entity.layout.initialValues
        self.relations = RelationSlot.initial(for: entity.layout)
        if let context { context.insert(self) }
    }

    /// Creates an object of the entity named ``entityName`` in `context`'s model and inserts it.
    ///
    /// - Throws: ``ModelError`` when the model has no such entity or it is abstract.
    public convenience init(context: ManagedObjectContext) throws {
        let entity = try context.entityForInsertion(of: Self.self)
        self.init(entity: entity, insertInto: context)
    }

    // MARK: State

    /// Whether the object was inserted since the last save.
    public var isInserted: Bool { state.isInserted }
    /// Whether the object has unsaved changes to saved values.
    public var isUpdated: Bool { state.isUpdated }
    /// Whether the object will be deleted by the next save.
    public var isDeleted: Bool { state.isDeleted }
    /// Whether the object is inserted, updated or deleted.
    public var hasChanges: Bool { state.isInserted || state.isUpdated || state.isDeleted }

    // MARK: Lifecycle hooks (override in subclasses; call super)

    /// Called once when the object is first inserted into a context — set initial values here.
    open func awakeFromInsert() {}
    /// Called when a fault's values have been loaded from the store.
    open func awakeFromFetch() {}
    /// Called for every changed object at the start of a save.
    open func willSave() {}
    /// Called for every saved object after the save succeeded.
    open func didSave() {}
    /// Called when the object is deleted, before delete rules are applied.
    open func prepareForDeletion() {}
    /// Called when the object is turned back into a fault.
    open func didTurnIntoFault() {}

    // MARK: Validation hooks (override to add rules; throw to refuse)

    /// Checks the object before an inserted object is saved. The default checks the model's rules.
    open func validateForInsert() throws {}
    /// Checks the object before an updated object is saved.
    open func validateForUpdate() throws {}
    /// Checks the object before a deleted object is saved.
    open func validateForDelete() throws {}
    /// Checks one stored attribute's value before the object is saved, after the model's own
    /// rules passed; throw to refuse it. Called for every attribute of inserted and updated objects.
    ///
    /// For example:
    ///
    /// ```swift
    /// override func validateValue(_ value: StoreValue, forKey key: String) throws {
    ///     if key == "title", value == "untitled" { throw TitleError.placeholder }
    /// }
    /// ```
    open func validateValue(_ value: StoreValue, forKey key: String) throws {}

    // MARK: Hashable by identity

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Whether this class is `base` or inherits from it.
    static func isSubclassOrSame(of base: ManagedObject.Type) -> Bool {
        var current: AnyClass? = self
        while let next = current {
            if next == base { return true }
            current = _getSuperclass(next)
        }
        return false
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The hash a `Set` or `Dictionary` uses, by identity and without a `Hasher` (save
    /// notifications carry sets of every saved object; see ``ManagedObjectID``), keeping the
    /// order objects lie in memory within each 4 KB (``HashMixing/mixKeepingNeighbors(_:seed:)``:
    /// a set of objects made one after another is filled and let go of a page at a time).
    public func _rawHashValue(seed: Int) -> Int {
        // 64-byte steps: no two objects (each larger) start in the same one, so a 4 KB run holds
        // at most a few dozen of its 64 buckets' objects.
        HashMixing.mixKeepingNeighbors(Int(bitPattern: ObjectIdentifier(self)) >> 6, seed: seed)
    }

    public var description: String {
        "<\(type(of: self)) \(entity.name) \(objectID)\(isFault ? " fault" : "")>"
    }
}

/// The state of one relationship in an object.
enum RelationSlot {
    /// Not a relationship, or a to-one whose destination is the ID (or null) in the object's
    /// values, not yet resolved to an object.
    case unresolved
    /// A to-one destination.
    case toOne(ManagedObject?)
    /// A to-many relationship not loaded yet.
    case toManyFault
    /// A to-many relationship known by IDs only.
    case toManyIDs([ManagedObjectID])
    /// A to-many relationship's objects.
    case toMany(RelatedObjects)

    /// What a new object starts with: empty relationships (none at all without relationships).
    static func initial(for layout: EntityLayout) -> ContiguousArray<RelationSlot> {
        guard layout.hasRelationships else { return [] }
        return ContiguousArray(layout.kinds.map { kind in
            switch kind {
            case .toMany: .toMany(RelatedObjects())
            case .toOne: .toOne(nil)
            case .attribute, .transientAttribute: .unresolved
            }
        })
    }

    /// What a fault starts with: every stored relationship unread, every transient one empty
    /// (held in memory only, it has nothing to read).
    static func fault(for layout: EntityLayout) -> ContiguousArray<RelationSlot> {
        guard layout.hasRelationships else { return [] }
        var slots = ContiguousArray(layout.kinds.map { $0 == .toMany ? RelationSlot.toManyFault : .unresolved })
        for index in layout.transientRelationshipIndexes {
            slots[index] = layout.kinds[index] == .toMany ? .toMany(RelatedObjects()) : .toOne(nil)
        }
        return slots
    }
}

/// The objects of a to-many relationship: in order, without duplicates. Membership, appending
/// and unordered removal cost O(1); inserting at or removing from a position of an ordered
/// relationship shifts the members after it.
struct RelatedObjects {
    private(set) var objects: [ManagedObject] = []
    private var positions: [ObjectIdentifier: Int] = [:]

    init() {}
    init(_ objects: [ManagedObject]) {
        for object in objects { insert(object) }
    }

    var count: Int { objects.count }
    func contains(_ object: ManagedObject) -> Bool { positions[ObjectIdentifier(object)] != nil }

    /// Adds `object` at `index` (at the end when `nil`); false when it is already a member.
    @discardableResult
    mutating func insert(_ object: ManagedObject, at index: Int? = nil) -> Bool {
        guard positions[ObjectIdentifier(object)] == nil else { return false }
        if let index, index < objects.count {
            objects.insert(object, at: Swift.max(index, 0))
            renumber(from: Swift.max(index, 0))
        } else {
            positions[ObjectIdentifier(object)] = objects.count
            objects.append(object)
        }
        return true
    }

    /// Removes `object`; false when it is not a member. Unless `keepingOrder`, the last member
    /// takes its place.
    @discardableResult
    mutating func remove(_ object: ManagedObject, keepingOrder: Bool) -> Bool {
        guard let position = positions.removeValue(forKey: ObjectIdentifier(object)) else { return false }
        if position == objects.count - 1 {
            objects.removeLast()
        } else if keepingOrder {
            objects.remove(at: position)
            renumber(from: position)
        } else {
            let last = objects.removeLast()
            objects[position] = last
            positions[ObjectIdentifier(last)] = position
        }
        return true
    }

    private mutating func renumber(from start: Int) {
        for position in start..<objects.count { positions[ObjectIdentifier(objects[position])] = position }
    }

    /// The members' IDs, in order.
    var ids: [ManagedObjectID] { objects.map(\.objectID) }
}
