/// A list of object IDs held as their keys (``CompactKeys``: 8 bytes each, or next to nothing
/// for runs of consecutive keys) plus, when the IDs span several entities or stores, a two-byte
/// space number each — at most half the memory of `[ManagedObjectID]`, which is what keeps a
/// batched fetch of millions of rows small.
///
/// For example:
///
/// ```swift
/// let list = CompactObjectIDList(ids)
/// list[3] == ids[3]   // true
/// ```
package struct CompactObjectIDList: RandomAccessCollection, Sendable {
    fileprivate enum Storage: Sendable {
        /// Every ID in one space.
        case single(ManagedObjectID.Space, keys: CompactKeys)
        /// Several spaces: each key's space by number.
        case numbered([ManagedObjectID.Space], keys: CompactKeys, spaceNumbers: [UInt16])
        /// No IDs, or more distinct spaces than two bytes can number (never for a real model): the IDs.
        case plain([ManagedObjectID])
    }

    private let storage: Storage

    /// The list of `ids`, in order.
    package init(_ ids: [ManagedObjectID]) {
        var builder = Builder()
        for id in ids { builder.append(id) }
        self = builder.list
    }

    /// The list of `ids` as they are, not compacted: for IDs a store gave as an array, read once.
    package init(holding ids: [ManagedObjectID]) { storage = .plain(ids) }

    private init(storage: Storage) { self.storage = storage }

    package var startIndex: Int { 0 }
    package var endIndex: Int {
        switch storage {
        case .single(_, let keys), .numbered(_, let keys, _): keys.count
        case .plain(let ids): ids.count
        }
    }

    package subscript(position: Int) -> ManagedObjectID {
        switch storage {
        case .single(let space, let keys):
            ManagedObjectID(space: space, key: keys[position])
        case .numbered(let spaces, let keys, let spaceNumbers):
            ManagedObjectID(space: spaces[Int(spaceNumbers[position])], key: keys[position])
        case .plain(let ids):
            ids[position]
        }
    }

    /// The IDs in order, the storage taken apart once (reading by position takes its parts out,
    /// a retain and a release of each, for every ID).
    package struct Iterator: IteratorProtocol {
        /// The keys and their spaces (one space: `single`), or the IDs as they are (`plain`).
        private var keys: CompactKeys.Iterator?
        private let single: ManagedObjectID.Space?
        private let spaces: [ManagedObjectID.Space]
        private let spaceNumbers: [UInt16]
        private var plain: IndexingIterator<[ManagedObjectID]>?
        private var position = 0

        fileprivate init(_ storage: Storage) {
            switch storage {
            case .single(let space, let keys):
                (self.keys, single, spaces, spaceNumbers) = (keys.makeIterator(), space, [], [])
            case .numbered(let spaces, let keys, let spaceNumbers):
                (self.keys, single, self.spaces, self.spaceNumbers) = (keys.makeIterator(), nil, spaces, spaceNumbers)
            case .plain(let ids):
                (single, spaces, spaceNumbers, plain) = (nil, [], [], ids.makeIterator())
            }
        }

        package mutating func next() -> ManagedObjectID? {
            guard keys != nil else { return plain?.next() }
            guard let key = keys?.next() else { return nil }
            defer { position += 1 }
            if let single { return ManagedObjectID(space: single, key: key) }
            return ManagedObjectID(space: spaces[Int(spaceNumbers[position])], key: key)
        }
    }

    package func makeIterator() -> Iterator { Iterator(storage) }

    /// The IDs at `positions`, as an array (the storage is looked at once, not per ID).
    package func ids(in positions: Range<Int>) -> [ManagedObjectID] {
        switch storage {
        case .single(let space, let keys):
            positions.map { ManagedObjectID(space: space, key: keys[$0]) }
        case .numbered(let spaces, let keys, let spaceNumbers):
            positions.map { ManagedObjectID(space: spaces[Int(spaceNumbers[$0])], key: keys[$0]) }
        case .plain(let ids):
            Array(ids[positions])
        }
    }

    /// Builds a list one ID at a time, without an array of the IDs themselves — a store reading
    /// a million keys appends each as it reads it.
    ///
    /// For example:
    ///
    /// ```swift
    /// var builder = CompactObjectIDList.Builder()
    /// builder.append(key: 7, sameEntityAndStoreAs: prototype)
    /// let list = builder.list
    /// ```
    package struct Builder {
        private var keys = CompactKeys()
        private var spaces: [ManagedObjectID.Space] = []
        private var spaceNumbers: [UInt16] = []
        private var numbers: [SpaceKey: UInt16] = [:]
        private var lastSpace: ManagedObjectID.Space?
        private var lastNumber: UInt16 = 0
        /// Set once the IDs span more spaces than two bytes number: every ID so far and after.
        private var plain: [ManagedObjectID]?

        /// An empty builder.
        package init() {}

        /// Appends `id`.
        package mutating func append(_ id: ManagedObjectID) {
            append(key: id.key, space: id.space)
        }

        /// Appends the permanent ID of row `key` of the entity and store of `prototype`.
        package mutating func append(key: Int64, sameEntityAndStoreAs prototype: ManagedObjectID) {
            if prototype.space.isTemporary {
                append(ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: prototype))
            } else {
                append(key: key, space: prototype.space)
            }
        }

        private mutating func append(key: Int64, space: ManagedObjectID.Space) {
            if plain != nil {
                plain?.append(ManagedObjectID(space: space, key: key))
                return
            }
            var number = lastNumber
            if space !== lastSpace {
                if let known = numbers[SpaceKey(space)] {
                    number = known
                } else {
                    guard spaces.count < Int(UInt16.max) else {
                        var ids = Array(list)
                        ids.append(ManagedObjectID(space: space, key: key))
                        plain = ids
                        return
                    }
                    number = UInt16(spaces.count)
                    numbers[SpaceKey(space)] = number
                    spaces.append(space)
                }
                lastSpace = space
                lastNumber = number
            }
            if spaceNumbers.isEmpty && number != 0 {
                spaceNumbers = [UInt16](repeating: 0, count: keys.count)
            }
            keys.append(key)
            if !spaceNumbers.isEmpty { spaceNumbers.append(number) }
        }

        /// The list of the IDs appended, in order.
        package var list: CompactObjectIDList {
            if let plain { return CompactObjectIDList(storage: .plain(plain)) }
            guard let first = spaces.first else { return CompactObjectIDList(storage: .plain([])) }
            if spaceNumbers.isEmpty { return CompactObjectIDList(storage: .single(first, keys: keys)) }
            return CompactObjectIDList(storage: .numbered(spaces, keys: keys, spaceNumbers: spaceNumbers))
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
