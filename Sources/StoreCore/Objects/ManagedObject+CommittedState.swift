/// Where an object's committed values (those last loaded or saved) are. An object whose
/// values are its committed ones holds nothing apart (`.current`) until its first change, when
/// `keepCommittedValues()` keeps the values buffer (one reference; the change then copies the
/// object's own). A loaded object is such an object: the row's values are moved in, not shared
/// (sharing cost a retain of each row's buffer, a cache miss per row of a large fetch). A loaded
/// object with transient properties keeps the row it was read with apart (`.values`: its own
/// values hold the transient ones), as does a fault waiting to be filled, and a saved object
/// its saved values, brought up to date in place by each save. Only committed state that holds
/// to-many relationships (atomic stores return them) needs a whole snapshot (`.kept`).
///
/// An object of an entity without relationships or transient attributes whose changes so far
/// are attribute changes keeps only the values they replaced (`.replaced`): its own values buffer is
/// then changed in place, not copied, and an update of one attribute of a million objects keeps
/// a million small lists rather than a million second buffers.
///
/// Rows cost nothing apart from their values: a `StoreSnapshot` holding exactly the stored
/// values allocates only its values buffer, and `.values` keeps that buffer alone — the object
/// supplies the ID, the entity and the version.
///
/// For example (inside StoreCore):
///
/// ```swift
/// object.load(row)                     // committed: .current, the row's values moved in
/// object.setAttributeValue(.string("Misty"), at: title)   // the object's array is copied
/// try context.save()                   // committed: .values(saved values), updated in place
/// ```
enum CommittedState {
    /// None: an inserted object never saved, or a fault holding no row.
    case none
    /// The object's current stored values (a clean object holding no row).
    case current
    /// Every stored attribute and to-one value, by property index, at the object's version: the
    /// row a fault waits to be filled from or a loaded object was read from, a changed object's
    /// values before its first change, a saved object's values.
    case values(StoreValues)
    /// The committed values the object's changes replaced, by property index, each kept at its
    /// first change; at every other index the committed value is the current one. A save
    /// empties the list and leaves it for the next change.
    case replaced(ContiguousArray<ReplacedValue>)
    /// A committed snapshot that holds more than the stored values (to-many IDs an atomic store
    /// returned, or set by a read); boxed, so that the common cases keep the object small.
    indirect case kept(StoreSnapshot)

    /// Moves the values out of `.values`, leaving `.current` (anything else stays as it is and
    /// gives `nil`): a waiting row becomes the object's values without a retain of its buffer.
    mutating func takeValues() -> StoreValues? {
        switch consume self {
        case .values(let values):
            self = .current
            return values
        case let other:
            self = other
            return nil
        }
    }
}

/// A committed value an object's change replaced (see `CommittedState.replaced`).
///
/// The property index is kept in the two bytes after the value's 21, so that an entry takes 24
/// bytes, not 32: a list of one (the usual change) is then a 56-byte allocation rather than 64 —
/// a heap block of 64 bytes rather than 80, for every updated object of a large save.
struct ReplacedValue {
    var value: StoreValue
    private let storedIndex: UInt16

    /// The entry for the value at `index`; `nil` for an index beyond what the entry holds (an
    /// entity of more than 65,535 properties keeps all its committed values instead).
    init?(index: Int, value: StoreValue) {
        guard let storedIndex = UInt16(exactly: index) else { return nil }
        self.value = value
        self.storedIndex = storedIndex
    }

    var index: Int { Int(storedIndex) }
}

extension ManagedObject {
    /// The committed values as a snapshot (made from the current values for a clean object);
    /// `nil` for an object never saved.
    var committedSnapshot: StoreSnapshot? {
        switch committed {
        case .none: nil
        case .current: currentSnapshot()
        case .values(let values): StoreSnapshot(objectID: objectID, version: version, entity: entity, values: values)
        case .replaced(let replaced): StoreSnapshot(objectID: objectID, version: version, entity: entity, values: values(restoring: replaced))
        case .kept(let snapshot): snapshot
        }
    }

    /// The current values with `replaced` put back.
    private func values(restoring replaced: ContiguousArray<ReplacedValue>) -> StoreValues {
        var committedValues = values
        for entry in replaced { committedValues[entry.index] = entry.value }
        return committedValues
    }

    /// Makes `snapshot` the committed state, as its values alone when it holds nothing more.
    /// Its version must be the object's.
    func setCommitted(_ snapshot: consuming StoreSnapshot) {
        committed = snapshot.holdsStoredValuesOnly ? .values(snapshot.takeValues()) : .kept(snapshot)
    }

    /// Whether the object has committed values (was loaded or saved, or waits with a row).
    var hasCommittedState: Bool {
        if case .none = committed { return false }
        return true
    }

    /// The row a fault was fetched with and may be filled from.
    var waitingRow: StoreSnapshot? {
        guard isFault else { return nil }
        switch committed {
        case .none, .current, .replaced: return nil
        case .values(let values): return StoreSnapshot(objectID: objectID, version: version, entity: entity, values: values)
        case .kept(let snapshot): return snapshot
        }
    }

    /// Whether a fault waits with a row to be filled from.
    var hasWaitingRow: Bool {
        guard isFault else { return false }
        switch committed {
        case .none, .current, .replaced: return false
        case .values, .kept: return true
        }
    }

    /// The committed value at a property index (`nil` for an object never saved).
    func committedValue(at index: Int) -> StoreValue? {
        switch committed {
        case .none: nil
        case .current: values[index]
        case .values(let committed): committed[index]
        case .replaced(let replaced): replaced.first { $0.index == index }?.value ?? values[index]
        case .kept(let snapshot): snapshot[index]
        }
    }

    /// Keeps the committed values apart before the object's current values change for the
    /// first time since it was loaded or saved.
    @inline(__always)
    func keepCommittedValues() {
        switch committed {
        case .current: keepCurrentValues()
        case .replaced(let replaced): committed = .values(values(restoring: replaced))
        case .none, .values, .kept: break
        }
    }

    /// Keeps the committed value of the attribute at `index` before it changes: for an entity
    /// without relationships or transient attributes, the value alone (`.replaced`), so that the
    /// change is made in the object's own values buffer; otherwise all of them (`keepCommittedValues`).
    @inline(__always)
    func keepCommittedValue(at index: Int) {
        switch committed {
        case .current:
            let layout = entity.layout
            guard !layout.hasRelationships && layout.transientIndexes.isEmpty,
                  let entry = ReplacedValue(index: index, value: values[index]) else { return keepCurrentValues() }
            committed = .replaced([entry])
        case .replaced(var replaced):
            guard !replaced.contains(where: { $0.index == index }) else { return }
            guard let entry = ReplacedValue(index: index, value: values[index]) else {
                committed = .values(values(restoring: replaced))
                return
            }
            committed = .none           // `replaced` holds the only reference: appended in place
            replaced.append(entry)
            committed = .replaced(replaced)
        case .none, .values, .kept:
            break
        }
    }

    private func keepCurrentValues() {
        let layout = entity.layout
        if !layout.hasRelationships && layout.transientIndexes.isEmpty {
            committed = .values(values)         // the values are all there is: no snapshot made
        } else {
            setCommitted(currentSnapshot())
        }
    }

    /// Sets a committed value the store computed (a derived attribute read back after a save).
    func setCommittedValue(_ value: StoreValue, at index: Int) {
        switch committed {
        case .none, .current: return
        case .replaced(var replaced):
            guard let position = replaced.firstIndex(where: { $0.index == index }) else { return }
            committed = .none           // `replaced` holds the only reference: changed in place
            replaced[position].value = value
            committed = .replaced(replaced)
        case .values(var values):
            committed = .none           // `values` holds the only reference: changed in place
            values[index] = value
            committed = .values(values)
        case .kept(var snapshot):
            committed = .none
            snapshot.setValue(value, at: index)
            committed = .kept(snapshot)
        }
    }

    /// Makes a saved update part of the committed values. The copy kept at the first change is
    /// updated in place rather than let go: freeing a large save's copies (a buffer of values
    /// each) would cost the save as much as updating them, and a later change would make them again.
    func commitSavedChange(_ change: StoreSnapshot) {
        switch committed {
        case .none, .current:
            committed = .current
        case .replaced(var replaced):
            committed = .none           // `replaced` holds the only reference: changed in place
            let saved = change.heldProperties
            replaced.removeAll { saved.contains($0.index) }   // committed now: the current values
            committed = .replaced(replaced)                   // kept, even empty, for the next change
        case .values(var merged) where !change.holdsToMany && change.entity === entity:
            committed = .none           // `merged` holds the only reference: changed in place
            for index in change.heldProperties { merged[index] = change.values[index] }
            committed = .values(merged)
        case .values, .kept:
            guard var snapshot = committedSnapshot else { return }
            committed = .none           // `snapshot` holds the only reference: changed in place
            snapshot.merge(change)
            snapshot.version = version
            setCommitted(snapshot)
        }
    }

    /// Records the IDs a to-many relationship was read with as committed.
    func setCommittedToMany(_ ids: [ManagedObjectID], at index: Int) {
        switch committed {
        case .none, .current: return
        case .values, .replaced, .kept:
            guard var snapshot = committedSnapshot else { return }
            committed = .none           // `snapshot` holds the only reference: changed in place
            snapshot.setToMany(ids, at: index)
            committed = .kept(snapshot)
        }
    }
}
