/// Keys that are consecutive and ascending (`k, k+1, …, k+n-1`), so `Z_PK BETWEEN first AND
/// last` selects exactly them — a range scan, where a key list costs a lookup per key.
///
/// For example:
///
/// ```swift
/// KeyRange([4, 5, 6])   // first 4, last 6
/// KeyRange([4, 6])      // nil
/// ```
struct KeyRange {
    let first: Int64
    let last: Int64

    /// The range of `keys`, or `nil` when they are empty or not consecutive ascending.
    init?(_ keys: [Int64]) {
        guard let first = keys.first, keys.count > 1 else { return nil }
        for (offset, key) in keys.enumerated() where key != first &+ Int64(offset) { return nil }
        self.first = first
        last = first &+ Int64(keys.count - 1)
    }
}
