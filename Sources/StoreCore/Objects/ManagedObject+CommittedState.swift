/// Where an object's committed values (those last loaded or saved) are. A snapshot that exists
/// anyway is kept: the row a loaded object (or a waiting fault) was read from, a saved new
/// object's snapshot — each sharing the object's values array until its first change — and a
/// changed object's values before that change, brought up to date in place by each save. An
/// object with no such snapshot whose values are its committed ones is `.current`: the copy is
/// made (`keepCommittedValues()`) just before its first change.
///
/// Loaded objects keep their rows on purpose: letting them go (tried in the fifth session of
/// 2026-11-27) left the fetch's resident memory as it was — the store had made each row's
/// storage, and freed blocks stay in the heap — and cost each object's first change an
/// allocation (an update-save of 100,000 objects 5 % slower, the copies cold in the save).
///
/// For example (inside StoreCore):
///
/// ```swift
/// object.load(row)                     // committed: .kept(row), sharing the values array
/// object.setAttributeValue(.string("Misty"), at: title)   // the object's array is copied
/// try context.save()                   // committed: .kept(saved values), updated in place
/// ```
enum CommittedState {
    /// None: an inserted object never saved, or a fault holding no row.
    case none
    /// The object's current stored values (a clean object with no snapshot kept).
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
