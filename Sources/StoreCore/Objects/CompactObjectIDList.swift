/// A list of object IDs held as their keys (8 bytes each) plus, when the IDs span several
/// entities or stores, a two-byte space number each — half the memory of `[ManagedObjectID]`,
/// which is what keeps a batched fetch of millions of rows small.
///
/// For example:
///
/// ```swift
/// let list = CompactObjectIDList(ids)
/// list[3] == ids[3]   // true
/// ```
struct CompactObjectIDList: RandomAccessCollection {
    private enum Storage {
        /// Every ID in one space.
        case single(ManagedObjectID.Space, keys: [Int64])
        /// Several spaces: each key's space by number.
        case numbered([ManagedObjectID.Space], keys: [Int64], spaceNumbers: [UInt16])
        /// No IDs, or more distinct spaces than two bytes can number (never for a real model): the IDs.
        case plain([ManagedObjectID])
    }

    private let storage: Storage

    init(_ ids: [ManagedObjectID]) {
        guard let first = ids.first?.space else {
            storage = .plain([])
            return
        }
        var keys: [Int64] = []
        keys.reserveCapacity(ids.count)
        var spaces = [first]
        var spaceNumbers: [UInt16] = []
        var numbers: [SpaceKey: UInt16] = [SpaceKey(first): 0]
        var last = (space: first, number: UInt16(0))
        for (position, id) in ids.enumerated() {
            keys.append(id.key)
            var number = last.number
            if id.space !== last.space {
                if let known = numbers[SpaceKey(id.space)] {
                    number = known
                } else {
                    guard spaces.count < Int(UInt16.max) else {
                        storage = .plain(ids)
                        return
                    }
                    number = UInt16(spaces.count)
                    numbers[SpaceKey(id.space)] = number
                    spaces.append(id.space)
                }
                last = (id.space, number)
            }
            if spaceNumbers.isEmpty && number != 0 {
                spaceNumbers = [UInt16](repeating: 0, count: position)
                spaceNumbers.reserveCapacity(ids.count)
            }
            if !spaceNumbers.isEmpty || number != 0 { spaceNumbers.append(number) }
        }
        storage = spaceNumbers.isEmpty ? .single(first, keys: keys) : .numbered(spaces, keys: keys, spaceNumbers: spaceNumbers)
    }

    var startIndex: Int { 0 }
    var endIndex: Int {
        switch storage {
        case .single(_, let keys), .numbered(_, let keys, _): keys.count
        case .plain(let ids): ids.count
        }
    }

    subscript(position: Int) -> ManagedObjectID {
        switch storage {
        case .single(let space, let keys):
            ManagedObjectID(space: space, key: keys[position])
        case .numbered(let spaces, let keys, let spaceNumbers):
            ManagedObjectID(space: spaces[Int(spaceNumbers[position])], key: keys[position])
        case .plain(let ids):
            ids[position]
        }
    }

    /// A space as a dictionary key: equal when the spaces name the same entity and store.
    private struct SpaceKey: Hashable {
        let space: ManagedObjectID.Space
        init(_ space: ManagedObjectID.Space) { self.space = space }
        static func == (lhs: SpaceKey, rhs: SpaceKey) -> Bool { lhs.space.matches(rhs.space) }
        func hash(into hasher: inout Hasher) { hasher.combine(space.hash) }
    }
}
