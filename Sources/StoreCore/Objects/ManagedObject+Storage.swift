import Foundation

/// Property access with fault firing, queue checks, change tracking and inverse maintenance.
/// Every public accessor (by key or typed) goes through these, by property index.
extension ManagedObject {
    /// Checks the queue and loads the values of a fault.
    @inline(__always)
    func willAccess() {
        guard state.accessNeedsWork, let context = managedObjectContext else { return }
        if ConcurrencyDebug.isEnabled { context.checkQueue(accessing: self) }
        if isFault { context.fulfillFault(self) }
    }

    func slotIndex(forKey key: String) throws(ModelError) -> Int {
        guard let index = entity.propertyIndexes[key] else {
            throw ModelError(.unknownKey, entity: entity.name, key: key, "no property '\(key)' on entity \(entity.name)")
        }
        return index
    }

    func recordFailedSet(_ error: any Error, forKey key: String) {
        guard let index = entity.propertyIndexes[key] else { return }
        state.failedSets[index] = error as? ObjectValidationError
            ?? ObjectValidationError(.wrongType, objectID: objectID, entity: entity.name, key: key, "the value could not be set: \(error)", underlyingError: error)
        managedObjectContext?.objectDidChange(self)
    }

    /// Tells the context's undo recorder, if any, that the property at `index` is about to change.
    @inline(__always)
    func willChange(at index: Int) {
        guard UndoRecording.isActive, let context = managedObjectContext else { return }
        context.recordForUndo(self, changing: index)
    }

    @inline(__always)
    func noteChange(at index: Int) {
        changedProperties.insert(index)
        // An inserted object is saved whole: its context has nothing more to record, but for
        // the report of a change made after objectsDidChange announced the insertion.
        if !state.isInserted || state.insertionReported { managedObjectContext?.objectDidChange(self) }
    }

    /// Records that a relationship could not be read from the store. The object is marked
    /// changed so that the next save reports the failure instead of writing what it could not read.
    func noteRelationshipFailure(_ error: any Error, at index: Int) {
        state.relationshipFailures[index] = error as? StoreError
            ?? StoreError(.io, objectID: objectID, "relationship \(entity.properties[index].name) could not be loaded: \(error)", underlying: error)
        managedObjectContext?.objectDidChange(self)
    }

    // MARK: Attributes

    /// The value of the attribute a typed declaration names (`.null` when the entity has none;
    /// on a key-path probe, the value it hands out — see ``ModelKeyPaths``).
    @usableFromInline
    func typedAttributeValue(for storageKeyPath: AnyKeyPath, valueType: Any.Type, explicitKey: () -> String?) -> StoreValue {
        // The common case first, with no call between finding the index and reading the value.
        if case .some(.some(let index)) = entity.typedPropertyIndexes.slots.cachedIndex(for: storageKeyPath) { return attributeValue(at: index) }
        let indexes = entity.typedPropertyIndexes
        guard let index = indexes.index(for: storageKeyPath, access: .attributeRead(valueType: valueType), explicitKey: explicitKey(), in: entity)
        else { return indexes.probe?.sentinel ?? .null }
        return attributeValue(at: index)
    }

    /// The property index of a typed declaration once it is known (the general path finds and
    /// records it at the first use), the object loaded first if it is a fault.
    @inline(__always)
    private func cachedAttributeIndex(for storageKeyPath: AnyKeyPath) -> Int? {
        guard case .some(.some(let index)) = entity.typedPropertyIndexes.slots.cachedIndex(for: storageKeyPath) else { return nil }
        willAccess()
        return index
    }

    /// The attribute a typed declaration names when its index is known and its slot holds a
    /// value of the slot's own kind, read without a ``StoreValue`` between (the typed getter's
    /// common case); `nil` sends the getter to ``typedAttributeValue(for:valueType:explicitKey:)``.
    @usableFromInline
    func doubleInPlace(for storageKeyPath: AnyKeyPath) -> Double? {
        guard let index = cachedAttributeIndex(for: storageKeyPath) else { return nil }
        return values.double(inPlaceAt: index)
    }
    @usableFromInline
    func integerInPlace(for storageKeyPath: AnyKeyPath) -> Int64? {
        guard let index = cachedAttributeIndex(for: storageKeyPath) else { return nil }
        return values.integer(inPlaceAt: index)
    }
    @usableFromInline
    func booleanInPlace(for storageKeyPath: AnyKeyPath) -> Bool? {
        guard let index = cachedAttributeIndex(for: storageKeyPath) else { return nil }
        return values.boolean(inPlaceAt: index)
    }
    @usableFromInline
    func dateInPlace(for storageKeyPath: AnyKeyPath) -> Date? {
        guard let index = cachedAttributeIndex(for: storageKeyPath) else { return nil }
        return values.date(inPlaceAt: index)
    }
    @usableFromInline
    func stringInPlace(for storageKeyPath: AnyKeyPath) -> String? {
        guard let index = cachedAttributeIndex(for: storageKeyPath) else { return nil }
        return values.string(inPlaceAt: index)
    }

    /// `Value` read straight from its slot (see `doubleInPlace(for:)`) when `Value` is a type a
    /// slot holds — `Double`, `Int64` (or `Int`), `Bool`, `Date`, `String` or an optional of one; `nil`
    /// otherwise. The type tests are constants once the caller is specialized for `Value`.
    @inlinable
    func typedAttributeInPlace<Value>(_: Value.Type, for storageKeyPath: AnyKeyPath) -> Value? {
        if Value.self == Double.self || Value.self == Double?.self { return doubleInPlace(for: storageKeyPath).flatMap { $0 as? Value } }
        if Value.self == String.self || Value.self == String?.self { return stringInPlace(for: storageKeyPath).flatMap { $0 as? Value } }
        if Value.self == Int64.self || Value.self == Int64?.self { return integerInPlace(for: storageKeyPath).flatMap { $0 as? Value } }
        if Value.self == Int.self || Value.self == Int?.self { return integerInPlace(for: storageKeyPath).flatMap { Int(exactly: $0) }.flatMap { $0 as? Value } }
        if Value.self == Date.self || Value.self == Date?.self { return dateInPlace(for: storageKeyPath).flatMap { $0 as? Value } }
        if Value.self == Bool.self || Value.self == Bool?.self { return booleanInPlace(for: storageKeyPath).flatMap { $0 as? Value } }
        return nil
    }

    /// Sets the attribute a typed declaration names to a value of its slot's own kind, in place,
    /// as ``setAttributeValue(_:at:)`` sets it (the object loaded, undo told, the committed value
    /// kept, the change noted) but without a ``StoreValue`` between: the typed setter's common
    /// case. `false`, having done nothing, when the index is not known yet or the slot is of
    /// another kind; the setter then takes the general path.
    @inline(__always)
    private func setAttributeInPlace<T>(_ value: consuming T, kind: StoreValueLayout.SlotKind, for storageKeyPath: AnyKeyPath) -> Bool {
        guard case .some(.some(let index)) = entity.typedPropertyIndexes.slots.cachedIndex(for: storageKeyPath),
              values.kind(at: index) == kind
        else { return false }
        willAccess()
        willChange(at: index)
        if state.hasFailedSets { state.failedSets[index] = nil }
        keepCommittedValue(at: index)
        values.set(inPlace: value, at: index)
        noteChange(at: index)
        return true
    }

    @usableFromInline
    func setDoubleInPlace(_ value: Double, for storageKeyPath: AnyKeyPath) -> Bool { setAttributeInPlace(value, kind: .double, for: storageKeyPath) }
    @usableFromInline
    func setIntegerInPlace(_ value: Int64, for storageKeyPath: AnyKeyPath) -> Bool { setAttributeInPlace(value, kind: .integer, for: storageKeyPath) }
    @usableFromInline
    func setBooleanInPlace(_ value: Bool, for storageKeyPath: AnyKeyPath) -> Bool { setAttributeInPlace(value, kind: .boolean, for: storageKeyPath) }
    @usableFromInline
    func setDateInPlace(_ value: Date, for storageKeyPath: AnyKeyPath) -> Bool { setAttributeInPlace(value, kind: .date, for: storageKeyPath) }
    @usableFromInline
    func setStringInPlace(_ value: String, for storageKeyPath: AnyKeyPath) -> Bool { setAttributeInPlace(value, kind: .string, for: storageKeyPath) }

    /// Sets `value` straight into its slot (see `setAttributeInPlace`) when `Value` is a type a
    /// slot holds — `Double`, `Int64` (or `Int`), `Bool`, `Date`, `String` or an optional of one
    /// holding a value; `false`, having done nothing, otherwise. The type tests are constants
    /// once the caller is specialized for `Value`.
    @inlinable
    func setTypedAttributeInPlace<Value>(_ value: Value, for storageKeyPath: AnyKeyPath) -> Bool {
        if Value.self == Double.self || Value.self == Double?.self, let value = value as? Double { return setDoubleInPlace(value, for: storageKeyPath) }
        if Value.self == String.self || Value.self == String?.self, let value = value as? String { return setStringInPlace(value, for: storageKeyPath) }
        if Value.self == Int64.self || Value.self == Int64?.self, let value = value as? Int64 { return setIntegerInPlace(value, for: storageKeyPath) }
        if Value.self == Int.self || Value.self == Int?.self, let value = value as? Int { return setIntegerInPlace(Int64(value), for: storageKeyPath) }
        if Value.self == Date.self || Value.self == Date?.self, let value = value as? Date { return setDateInPlace(value, for: storageKeyPath) }
        if Value.self == Bool.self || Value.self == Bool?.self, let value = value as? Bool { return setBooleanInPlace(value, for: storageKeyPath) }
        return false
    }

    /// Sets the attribute a typed declaration names. A value that does not fit (an integer too
    /// large for Integer 16, say) is kept as given, so that the next save reports it instead of
    /// losing it silently.
    @usableFromInline
    func setTypedAttributeValue(_ value: StoreValue, for storageKeyPath: AnyKeyPath, explicitKey: () -> String?) {
        // As in `typedAttributeValue`: the common case holds no reference to the index table.
        let index: Int?
        if case .some(let known) = entity.typedPropertyIndexes.slots.cachedIndex(for: storageKeyPath) {
            index = known
        } else {
            index = entity.typedPropertyIndexes.index(for: storageKeyPath, explicitKey: explicitKey(), in: entity)
        }
        guard let index, let type = entity.layout.attributeTypes[index] else {
            entity.typedPropertyIndexes.probe?.recordWritten(value)
            return
        }
        setAttributeValue(type.storesAsIs(value) ? value : type.coerce(value) ?? value, at: index)
    }

    @inline(__always)
    func attributeValue(at index: Int) -> StoreValue {
        willAccess()
        return values[index]
    }

    func setAttributeValue(_ value: StoreValue, at index: Int) {
        willAccess()
        willChange(at: index)
        if state.hasFailedSets { state.failedSets[index] = nil }
        keepCommittedValue(at: index)
        values[index] = value
        noteChange(at: index)
    }

    // MARK: To-one

    func toOneObject(at index: Int) -> ManagedObject? {
        willAccess()
        switch relations[index] {
        case .toOne(let object):
            return object
        case .unresolved:
            guard case .objectID(let id) = values[index] else {
                relations[index] = .toOne(nil)
                return nil
            }
            let object = managedObjectContext?.registeredOrFaultObject(for: id)
            relations[index] = .toOne(object)
            return object
        default:
            return nil
        }
    }

    /// The to-one destination's ID (or `.null`) without resolving it to an object.
    func toOneValue(at index: Int) -> StoreValue {
        switch relations[index] {
        case .toOne(let object): object.map { .objectID($0.objectID) } ?? .null
        default: values[index]
        }
    }

    /// Sets a to-one relationship and keeps the inverse side in step (a relationship without
    /// an inverse, as Xcode models may have, is set on this side only).
    func setToOne(_ destination: ManagedObject?, at index: Int) {
        guard let relationship = entity.properties[index] as? RelationshipDescription else { return }
        let inverse = relationship.inverseRelationship
        let old = toOneObject(at: index)
        if old === destination { return }
        rawSetToOne(destination, at: index)
        if let old, let inverse { old.unlink(self, from: inverse) }
        if let destination, let inverse { destination.link(self, into: inverse) }
    }

    func rawSetToOne(_ object: ManagedObject?, at index: Int) {
        willAccess()
        willChange(at: index)
        keepCommittedValues()
        relations[index] = .toOne(object)
        noteChange(at: index)
    }

    // MARK: To-many

    /// The members of a to-many relationship, loading them on first read. When the store cannot
    /// answer, the relationship stays unread (a later read tries again), the failure is kept for
    /// `value(forKey:)` and the next save, and the result is empty.
    func toManyObjects(at index: Int) -> RelatedObjects {
        (try? loadedToMany(at: index)) ?? RelatedObjects()
    }

    /// The members of a to-many relationship, loading them on first read.
    ///
    /// - Throws: the store's error when the members cannot be read (recorded on the object too).
    func loadedToMany(at index: Int) throws -> RelatedObjects {
        willAccess()
        switch relations[index] {
        case .toMany(let related):
            return related
        case .toManyIDs(let ids):
            let related = resolve(ids)
            relations[index] = .toMany(related)
            return related
        case .toManyFault:
            guard let relationship = entity.properties[index] as? RelationshipDescription, let context = managedObjectContext else {
                return RelatedObjects()
            }
            // A transient relationship is held in memory only: the store has nothing to read.
            if relationship.isTransient {
                relations[index] = .toMany(RelatedObjects())
                return RelatedObjects()
            }
            let ids: [ManagedObjectID]
            do {
                ids = try context.loadToMany(relationship, of: self)
            } catch {
                noteRelationshipFailure(error, at: index)
                throw error
            }
            if state.hasRelationshipFailures { state.relationshipFailures[index] = nil }
            let related = resolve(ids)
            relations[index] = .toMany(related)
            setCommittedToMany(ids, at: index)
            return related
        case .unresolved, .toOne:
            return RelatedObjects()
        }
    }

    private func resolve(_ ids: [ManagedObjectID]) -> RelatedObjects {
        guard let context = managedObjectContext else { return RelatedObjects() }
        return RelatedObjects(ids.compactMap { context.registeredOrFaultObject(for: $0) })
    }

    /// Changes a to-many relationship in place (no copy of its members). Returns whether
    /// `change` changed it; when the members cannot be loaded, nothing changes.
    @discardableResult
    private func mutateToMany(at index: Int, _ change: (inout RelatedObjects) -> Bool) -> Bool {
        guard var related = try? loadedToMany(at: index) else { return false }
        willChange(at: index)
        keepCommittedValues()
        relations[index] = .unresolved          // drop the slot's reference: `related` is unique
        let changed = change(&related)
        relations[index] = .toMany(related)
        if changed { noteChange(at: index) }
        return changed
    }

    /// Replaces a to-many relationship's contents and keeps every inverse in step (a
    /// relationship without an inverse changes on this side only).
    func setToMany(_ objects: [ManagedObject], at index: Int) {
        guard let relationship = entity.properties[index] as? RelationshipDescription,
            let current = try? loadedToMany(at: index)
        else { return }
        let inverse = relationship.inverseRelationship
        let wanted = RelatedObjects(objects)
        for object in current.objects where !wanted.contains(object) { removeFromToMany(object, at: index, inverse: inverse) }
        for (position, object) in wanted.objects.enumerated() where !current.contains(object) {
            addToToMany(object, at: index, inverse: inverse, position: relationship.isOrdered ? position : nil)
        }
        if relationship.isOrdered, toManyObjects(at: index).objects.map(ObjectIdentifier.init) != wanted.objects.map(ObjectIdentifier.init) {
            willChange(at: index)
            keepCommittedValues()
            relations[index] = .toMany(wanted)
            noteChange(at: index)
        }
    }

    /// Adds `object` to a to-many relationship and sets the inverse; false when it was a member.
    @discardableResult
    func addToToMany(_ object: ManagedObject, at index: Int, inverse: RelationshipDescription?, position: Int? = nil) -> Bool {
        guard mutateToMany(at: index, { $0.insert(object, at: position) }) else { return false }
        if let inverse { object.link(self, into: inverse) }
        return true
    }

    /// Removes `object` from a to-many relationship and clears the inverse; false when it was
    /// not a member.
    @discardableResult
    func removeFromToMany(_ object: ManagedObject, at index: Int, inverse: RelationshipDescription?) -> Bool {
        guard mutateToMany(at: index, { $0.remove(object, keepingOrder: isOrderedRelationship(at: index)) }) else { return false }
        if let inverse { object.unlink(self, from: inverse) }
        return true
    }

    /// Whether the to-many relationship at `index` keeps its members in order.
    func isOrderedRelationship(at index: Int) -> Bool {
        (entity.properties[index] as? RelationshipDescription)?.isOrdered ?? true
    }

    // MARK: Inverse side (no further propagation except stealing for one-to-many)

    /// Makes `self.relationship` include `source` (the other side already points at self).
    func link(_ source: ManagedObject, into relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        if relationship.isToMany {
            mutateToMany(at: index) { $0.insert(source) }
        } else {
            let previous = toOneObject(at: index)
            if previous === source { return }
            rawSetToOne(source, at: index)
            // self moved away from `previous`: take self out of previous's side.
            if let previous, let inverse = relationship.inverseRelationship { previous.unlinkRaw(self, from: inverse) }
        }
    }

    /// Makes `self.relationship` drop `source`.
    func unlink(_ source: ManagedObject, from relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        if relationship.isToMany {
            unlinkRaw(source, from: relationship)
        } else if toOneObject(at: index) === source {
            rawSetToOne(nil, at: index)
        }
    }

    func unlinkRaw(_ object: ManagedObject, from relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        if relationship.isToMany {
            mutateToMany(at: index) { $0.remove(object, keepingOrder: relationship.isOrdered) }
        } else if toOneObject(at: index) === object {
            rawSetToOne(nil, at: index)
        }
    }

    // MARK: Whole properties (refresh and merge keep changed ones across a reload)

    /// One property's state, to put back after a reload.
    enum PropertyState {
        case value(StoreValue)
        case relation(RelationSlot, StoreValue)
    }

    func propertyState(at index: Int) -> PropertyState {
        relations.isEmpty || entity.layout.kinds[index] == .attribute || entity.layout.kinds[index] == .transientAttribute
            ? .value(values[index]) : .relation(relations[index], values[index])
    }

    func restore(_ property: PropertyState, at index: Int) {
        keepCommittedValues()
        switch property {
        case .value(let value): values[index] = value
        case .relation(let slot, let value):
            relations[index] = slot
            values[index] = value
        }
    }

    // MARK: Snapshots

    /// The object's current stored values as a complete snapshot (to-many only where loaded,
    /// unless `allToMany`); transient properties are left out (`.null`), as stores keep none.
    /// `version` replaces the object's own (a new object's snapshot carries the version it will
    /// have once saved).
    func currentSnapshot(allToMany: Bool = false, version: Int64? = nil) -> StoreSnapshot {
        willAccess()
        let layout = entity.layout
        var snapshot = StoreSnapshot(objectID: objectID, version: version ?? self.version, entity: entity, values: values)
        for index in layout.transientIndexes where !values[index].isNull { snapshot.setValue(.null, at: index) }
        guard layout.hasRelationships else { return snapshot }
        let transient = layout.transientProperties
        for index in layout.toOneIndexes {
            // Written only when it differs, so that the snapshot keeps sharing the object's array.
            let value = transient.contains(index) ? .null : toOneValue(at: index)
            if values[index] != value { snapshot.setValue(value, at: index) }
        }
        for index in layout.toManyIndexes where !transient.contains(index) {
            switch relations[index] {
            case .toMany(let related): snapshot.setToMany(related.ids, at: index)
            case .toManyIDs(let ids): snapshot.setToMany(ids, at: index)
            case .toManyFault:
                if allToMany, let related = try? loadedToMany(at: index) { snapshot.setToMany(related.ids, at: index) }
            case .unresolved, .toOne: break
            }
        }
        return snapshot
    }

    /// The changed stored values, with the version they were based on (transient properties
    /// are never among them). The changed attributes are read from the object's values buffer,
    /// shared rather than copied (a save of many updates held a second array per object);
    /// the held-property mask is shared through `shared` with the save's other updates that
    /// change the same attributes (see `StoreSnapshot.SharedHolding`).
    func changedSnapshot(sharing shared: inout StoreSnapshot.SharedHolding) -> StoreSnapshot {
        let kinds = entity.layout.kinds
        let transient = entity.layout.transientProperties
        var attributes = PropertyMask()
        for index in changedProperties where kinds[index] == .attribute { attributes.insert(index) }
        var snapshot = StoreSnapshot(objectID: objectID, version: version, entity: entity, values: values, holding: attributes, sharing: &shared)
        for index in changedProperties where !transient.contains(index) {
            switch kinds[index] {
            case .attribute, .transientAttribute: break
            case .toOne: snapshot[index] = toOneValue(at: index)
            case .toMany:
                switch relations[index] {
                case .toMany(let related): snapshot.setToMany(related.ids, at: index)
                case .toManyIDs(let ids): snapshot.setToMany(ids, at: index)
                case .toManyFault, .unresolved, .toOne: break
                }
            }
        }
        return snapshot
    }

    /// Holds what a fault holds: `.null` for stored properties, defaults for transient
    /// attributes, relationships not yet read.
    func holdFaultValues() {
        values = entity.layout.faultValues
        if entity.layout.hasRelationships { relations = RelationSlot.fault(for: entity.layout) }
    }

    /// Takes the values of a snapshot and marks the object clean, keeping its transient
    /// properties (a fault holds their initial values, or those a merging refresh kept). A
    /// row of stored values alone, of an entity without transient properties, is moved in and
    /// is the committed state until the first change (`.current`); otherwise the object shares
    /// the snapshot's values until its first change and keeps them as its committed values
    /// (see `CommittedState`).
    func load(_ snapshot: consuming StoreSnapshot) {
        // Laid out again only when it is another model's (a copy costs a retain per reference).
        guard snapshot.entity === entity else { return load(snapshot.laidOut(as: entity)) }
        version = snapshot.version
        let layout = entity.layout
        if snapshot.holdsStoredValuesOnly && layout.transientIndexes.isEmpty && layout.transientRelationshipIndexes.isEmpty {
            // The values are the committed ones until the first change, which keeps them apart
            // (`keepCommittedValues`): moved in, not shared, they cost no retain here.
            committed = .current
            takeLoadedValues(snapshot.takeValues(), toMany: nil)
            return
        }
        takeLoadedValues(snapshot.values, toMany: snapshot.holdsToMany ? snapshot : nil)
        setCommitted(snapshot)
    }

    /// Fills a fault from the row it was fetched with when that row is its stored values alone
    /// (then no snapshot is made for it); `false` when the fault waits with no such row.
    func loadWaitingValues() -> Bool {
        guard isFault, case .values = committed else { return false }
        let layout = entity.layout
        // Without transient properties the row is all the object holds: moved in, it is the
        // committed state until the first change (`.current`), as for a loaded row.
        if layout.transientIndexes.isEmpty && layout.transientRelationshipIndexes.isEmpty, let row = committed.takeValues() {
            takeLoadedValues(row, toMany: nil)
            return true
        }
        guard case .values(let row) = committed else { return false }
        takeLoadedValues(row, toMany: nil)
        return true
    }

    /// Takes `loaded` as the current values (keeping transient properties) and `toMany`'s
    /// to-many IDs, and marks the object clean.
    private func takeLoadedValues(_ loaded: consuming StoreValues, toMany: StoreSnapshot?) {
        let layout = entity.layout
        if layout.transientIndexes.isEmpty && layout.transientRelationshipIndexes.isEmpty {
            swap(&values, &loaded)              // moved in, not retained (see `load`)
        } else {
            let previous = values
            values = loaded
            for index in layout.transientIndexes where values[index] != previous[index] { values[index] = previous[index] }
            for index in layout.transientRelationshipIndexes where values[index] != previous[index] { values[index] = previous[index] }
        }
        if layout.hasRelationships {
            if relations.isEmpty { relations = RelationSlot.fault(for: layout) }
            let transient = layout.transientProperties
            for index in layout.toOneIndexes where !transient.contains(index) { relations[index] = .unresolved }
            for index in layout.toManyIndexes where !transient.contains(index) {
                relations[index] = toMany?.toMany(at: index).map(RelationSlot.toManyIDs) ?? .toManyFault
            }
        }
        changedProperties.removeAll()
        isFault = false
        state.faultFailure = nil
        if state.hasRelationshipFailures { state.relationshipFailures = [:] }
    }

    /// Writes the values of a (partial) snapshot as changes, without touching inverses (the
    /// snapshot comes from a context that already kept both sides in step).
    func apply(_ snapshot: StoreSnapshot) {
        let snapshot = snapshot.laidOut(as: entity)
        let kinds = entity.layout.kinds
        if !snapshot.heldProperties.isEmpty { keepCommittedValues() }
        for index in snapshot.heldProperties {
            switch kinds[index] {
            case .attribute, .transientAttribute:
                values[index] = snapshot[index]
            case .toOne:
                values[index] = snapshot[index]
                relations[index] = .unresolved
            case .toMany:
                guard let ids = snapshot.toMany(at: index) else { continue }
                relations[index] = .toManyIDs(ids)
            }
            noteChange(at: index)
        }
    }

    /// Replaces ID-only relationships with objects, before IDs change during a save.
    func resolveReferences() {
        guard entity.layout.hasRelationships else { return }
        for index in relations.indices {
            switch relations[index] {
            case .unresolved where entity.layout.kinds[index] == .toOne: _ = toOneObject(at: index)
            case .toManyIDs: _ = toManyObjects(at: index)
            default: break
            }
        }
    }

    /// Drops the values; the next access loads them again. Transient properties are disposed of
    /// (back to their initial values) unless `keepingTransientValues`, as Core Data's
    /// `refresh(_:mergeChanges:)` does with `mergeChanges` false and true.
    func turnIntoFault(keepingTransientValues: Bool = false) {
        let layout = entity.layout
        isFault = true
        committed = .none
        changedProperties.removeAll()
        let kept = keepingTransientValues ? layout.transientProperties : PropertyMask()
        var faultValues = layout.faultValues
        var faultRelations = RelationSlot.fault(for: layout)
        if !kept.isEmpty {
            for index in layout.transientIndexes { faultValues[index] = values[index] }
            for index in layout.transientRelationshipIndexes where index < relations.count {
                faultValues[index] = values[index]
                faultRelations[index] = relations[index]
            }
        }
        values = faultValues
        relations = faultRelations
        didTurnIntoFault()
    }

    /// Breaks reference cycles when the object leaves its context.
    func detach() {
        letGoOfRelations()
        managedObjectContext = nil
    }

    /// Breaks reference cycles and makes the object a fault, leaving its context reference (for
    /// a context being deallocated, which weak references already read as nil).
    func letGoOfRelations() {
        if entity.layout.hasRelationships { relations = RelationSlot.fault(for: entity.layout) }
        isFault = true
    }
}
