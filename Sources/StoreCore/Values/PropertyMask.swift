/// A set of property indexes (positions in ``EntityDescription/properties``), as a bitset.
///
/// Snapshots use it to say which properties they hold (an update holds only the changed ones);
/// objects use it to track their changes. Entities of up to 64 properties fit in one word; larger
/// ones spill into an array.
///
/// For example:
///
/// ```swift
/// var changed = PropertyMask()
/// changed.insert(3)
/// changed.contains(3)          // true
/// for index in changed { print(entity.properties[index].name) }
/// ```
public struct PropertyMask: Sendable, Hashable, Sequence {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    /// An empty set.
    public init() {}

    /// The indexes `0..<count`.
    public init(upTo count: Int) {
        for index in 0..<count { insert(index) }
    }

    /// Whether no index is in the set.
    public var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    /// How many indexes the set holds.
    public var count: Int { low.nonzeroBitCount + high.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Whether `index` is in the set.
    public func contains(_ index: Int) -> Bool {
        if index < 64 { return index >= 0 && low & (1 << UInt64(index)) != 0 }
        return containsHigh(index)
    }

    private func containsHigh(_ index: Int) -> Bool {
        let word = index / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(index % 64)) != 0
    }

    /// Adds `index` (a negative index is not a property and is ignored).
    public mutating func insert(_ index: Int) {
        guard index >= 0 else { return }
        if index < 64 {
            low |= 1 << UInt64(index)
            return
        }
        let word = index / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word - high.count + 1)) }
        high[word] |= 1 << UInt64(index % 64)
    }

    /// Removes `index`.
    public mutating func remove(_ index: Int) {
        if index < 64 {
            if index >= 0 { low &= ~(1 << UInt64(index)) }
            return
        }
        let word = index / 64 - 1
        if word < high.count { high[word] &= ~(1 << UInt64(index % 64)) }
    }

    /// Removes every index.
    public mutating func removeAll() {
        low = 0
        if !high.isEmpty { high = [] }
    }

    /// Adds every index of `other`.
    public mutating func formUnion(_ other: PropertyMask) {
        low |= other.low
        if other.high.count > high.count { high.append(contentsOf: repeatElement(0, count: other.high.count - high.count)) }
        for (word, bits) in other.high.enumerated() { high[word] |= bits }
    }

    /// The indexes of both sets.
    public func intersection(_ other: PropertyMask) -> PropertyMask {
        var result = PropertyMask()
        result.low = low & other.low
        result.high = zip(high, other.high).map { $0 & $1 }
        return result
    }

    public static func == (lhs: PropertyMask, rhs: PropertyMask) -> Bool {
        guard lhs.low == rhs.low else { return false }
        let count = Swift.max(lhs.high.count, rhs.high.count)
        for word in 0..<count where (word < lhs.high.count ? lhs.high[word] : 0) != (word < rhs.high.count ? rhs.high[word] : 0) {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(low)
        var trimmed = high
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }

    /// The indexes in ascending order.
    public func makeIterator() -> Iterator { Iterator(mask: self) }

    /// Iterates the indexes in ascending order.
    public struct Iterator: IteratorProtocol {
        private let high: [UInt64]
        private var bits: UInt64
        private var word = -1

        init(mask: PropertyMask) {
            bits = mask.low
            high = mask.high
        }

        /// The next index held, ascending (the low word first, then each high word); `nil` when done.
        public mutating func next() -> Int? {
            while bits == 0 {
                word += 1
                guard word < high.count else { return nil }
                bits = high[word]
            }
            let bit = bits.trailingZeroBitCount
            bits &= bits - 1
            return (word + 1) * 64 + bit
        }
    }
}
