/// Where an object's committed values (those last loaded or saved) are: a loaded object's are
/// its current values, so it keeps no copy of them; the copy is made on the first change.
///
/// A fetched object used to hold the row it was made from beside its values (one allocation
/// and ~80 bytes per object, kept for the object's life although equal to its values until it
/// changed). Now the row is kept only by a fault waiting to be filled from it, by a changed
/// object (its values before the first change, brought up to date by each save), and by a saved
/// new object (the save's snapshot, which shares its values array: letting a large save's
/// snapshots go would cost the save their freeing).
///
/// For example (inside StoreCore):
///
/// ```swift
/// object.load(row)                     // committed: .current, no copy
/// object.setAttributeValue(.string("Misty"), at: title)   // committed: .kept(values before)
/// try context.save()                   // committed: .kept(saved values), updated in place
/// ```
enum CommittedState {
    /// None: an inserted object never saved, or a fault holding no row.
    case none
    /// The object's current stored values (a clean loaded object).
    case current
    /// Held apart: the row a fault waits to be filled from, a changed object's values before its
    /// first change, or a saved new object's snapshot.
    case kept(StoreSnapshot)
}

extension ManagedObject {
    /// The committed values as a snapshot (made from the current values for a clean object);
    /// `nil` for an object never saved.
    var committedSnapshot: StoreSnapshot? {
        switch committed {
        case .none: nil
        case .current: currentSnapshot()
        case .kept(let snapshot): snapshot
        }
    }

    /// Whether the object has committed values (was loaded or saved, or waits with a row).
    var hasCommittedState: Bool {
        if case .none = committed { return false }
        return true
    }

    /// The row a fault was fetched with and may be filled from.
    var waitingRow: StoreSnapshot? {
        guard isFault, case .kept(let snapshot) = committed else { return nil }
        return snapshot
    }

    /// The committed value at a property index (`nil` for an object never saved).
    func committedValue(at index: Int) -> StoreValue? {
        switch committed {
        case .none: nil
        case .current: values[index]
        case .kept(let snapshot): snapshot[index]
        }
    }

    /// Keeps the committed values apart before the object's current values change for the
    /// first time since it was loaded or saved.
    @inline(__always)
    func keepCommittedValues() {
        if case .current = committed { committed = .kept(currentSnapshot()) }
    }

    /// Sets a committed value the store computed (a derived attribute read back after a save).
    func setCommittedValue(_ value: StoreValue, at index: Int) {
        guard case .kept(var snapshot) = committed else { return }
        committed = .none               // `snapshot` holds the only reference: changed in place
        snapshot.setValue(value, at: index)
        committed = .kept(snapshot)
    }

    /// Makes a saved update part of the committed values. The copy kept at the first change is
    /// updated in place rather than let go: freeing a large save's copies (an array of values
    /// each) would cost the save as much as updating them, and a later change would make them again.
    func commitSavedChange(_ change: StoreSnapshot) {
        guard case .kept(var snapshot) = committed else {
            committed = .current
            return
        }
        committed = .none               // `snapshot` holds the only reference: changed in place
        snapshot.merge(change)
        snapshot.version = version
        committed = .kept(snapshot)
    }

    /// Records the IDs a to-many relationship was read with as committed.
    func setCommittedToMany(_ ids: [ManagedObjectID], at index: Int) {
        guard case .kept(var snapshot) = committed else { return }
        committed = .none
        snapshot.setToMany(ids, at: index)
        committed = .kept(snapshot)
    }
}
