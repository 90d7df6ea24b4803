/// Primary keys in chunks of 4,096: a chunk of consecutive ascending keys is held as its first
/// key alone — so the keys of a table read in key order take a few bytes per chunk — and any
/// other chunk as its keys (8 bytes each). Growing never copies more than one chunk, so a
/// million keys never need a second megabytes-long array beside the first.
///
/// For example:
///
/// ```swift
/// var keys = CompactKeys()
/// for key in 1...10_000 { keys.append(Int64(key)) }   // three chunks, each a first key
/// keys[9_999]   // 10000
/// ```
struct CompactKeys: Sequence, Sendable {
    private static let shift = 12
    private static let chunkSize = 1 << shift

    fileprivate enum Chunk: Sendable {
        /// `count` consecutive keys from `first`.
        case run(first: Int64, count: Int)
        case keys([Int64])
    }

    private var chunks: [Chunk] = []
    /// How many keys there are.
    private(set) var count = 0

    /// Appends `key` after the others.
    mutating func append(_ key: Int64) {
        defer { count += 1 }
        let last = chunks.count - 1
        guard last >= 0, count & (Self.chunkSize - 1) != 0 else {
            chunks.append(.run(first: key, count: 1))
            return
        }
        switch chunks[last] {
        case .run(let first, let length):
            if key == first &+ Int64(length) {
                chunks[last] = .run(first: first, count: length + 1)
            } else {
                var keys: [Int64] = []
                keys.reserveCapacity(Self.chunkSize)
                for offset in 0..<length { keys.append(first &+ Int64(offset)) }
                keys.append(key)
                chunks[last] = .keys(keys)
            }
        case .keys(var keys):
            chunks[last] = .run(first: 0, count: 0)   // lets `keys` be the array's only reference: appended in place
            keys.append(key)
            chunks[last] = .keys(keys)
        }
    }

    subscript(position: Int) -> Int64 {
        switch chunks[position >> Self.shift] {
        case .run(let first, _): first &+ Int64(position & (Self.chunkSize - 1))
        case .keys(let keys): keys[position & (Self.chunkSize - 1)]
        }
    }

    /// The keys in order, a chunk taken out once rather than per key (reading by position takes
    /// a chunk's array out, a retain and a release, for every key).
    struct Iterator: IteratorProtocol {
        private let chunks: [Chunk]
        private var nextChunk = 0
        /// The rest of the current chunk: a run's next key and how many remain, or its keys.
        private var runKey: Int64 = 0
        private var runRemaining = 0
        private var keys: [Int64] = []
        private var keyPosition = 0

        fileprivate init(_ chunks: [Chunk]) { self.chunks = chunks }

        mutating func next() -> Int64? {
            while true {
                if runRemaining > 0 {
                    runRemaining -= 1
                    defer { runKey &+= 1 }
                    return runKey
                }
                if keyPosition < keys.count {
                    defer { keyPosition += 1 }
                    return keys[keyPosition]
                }
                guard nextChunk < chunks.count else { return nil }
                switch chunks[nextChunk] {
                case .run(let first, let count):
                    (runKey, runRemaining, keys, keyPosition) = (first, count, [], 0)
                case .keys(let chunkKeys):
                    (keys, keyPosition) = (chunkKeys, 0)
                }
                nextChunk += 1
            }
        }
    }

    func makeIterator() -> Iterator { Iterator(chunks) }
}
