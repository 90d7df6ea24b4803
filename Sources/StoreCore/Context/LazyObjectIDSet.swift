import Synchronization

/// One of the ID sets of a ``ContextChanges`` value, made from the list of IDs it was given when
/// it is first read.
///
/// A save describes every object it saved several times over (will-save, objects-did-change,
/// did-save, the coordinator's other contexts); most of those descriptions are never read, and
/// hashing a set of 100,000 IDs for each was a tenth of a large save. Copies share the list and,
/// once built, the set.
struct LazyObjectIDSet: Sendable, Hashable {
    private enum State: Sendable {
        case list([ManagedObjectID])
        /// A save's new objects' IDs: runs of consecutive keys take a few bytes.
        case compact(CompactObjectIDList)
        case set(Set<ManagedObjectID>)
    }

    private final class Box: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }

        var set: Set<ManagedObjectID> {
            state.withLock { state in
                switch state {
                case .set(let set): return set
                case .list(var ids):
                    // The IDs move from the list into the set (the list is let go first, so `ids` is
                    // its only holder): no retain and release of each ID's space, which was half
                    // the cost of the set. `update(with: consume id)` moves the ID in: `insert`
                    // hands back a copy of the member it inserted, and without `consume` the ID
                    // is copied in — a retain and a release each, atomic operations that waited
                    // for the previous ID's store into the table (cold in a large set).
                    state = .set([])
                    var set = Set<ManagedObjectID>(minimumCapacity: ids.count)
                    while let id = ids.popLast() { set.update(with: consume id) }
                    state = .set(set)
                    return set
                case .compact(let ids):
                    // Each ID is made once and moved in (see above).
                    var set = Set<ManagedObjectID>(minimumCapacity: ids.count)
                    for id in ids { set.update(with: consume id) }
                    state = .set(set)
                    return set
                }
            }
        }
    }

    /// `nil` when empty, so that `isEmpty` never builds a set.
    private var box: Box?

    init() {}

    /// The set of `ids`, built when first read.
    init(building ids: [ManagedObjectID]) {
        box = ids.isEmpty ? nil : Box(.list(ids))
    }

    /// The set of the IDs of `list`, built when first read.
    init(building list: CompactObjectIDList) {
        box = list.isEmpty ? nil : Box(.compact(list))
    }

    var value: Set<ManagedObjectID> {
        get { box?.set ?? [] }
        set { box = newValue.isEmpty ? nil : Box(.set(newValue)) }
        _modify {
            var set = value
            box = nil  // a box held only here goes, so `set` is changed in place
            defer { box = set.isEmpty ? nil : Box(.set(set)) }
            yield &set
        }
    }

    var isEmpty: Bool { box == nil }

    static func == (lhs: LazyObjectIDSet, rhs: LazyObjectIDSet) -> Bool {
        lhs.box === rhs.box || lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
