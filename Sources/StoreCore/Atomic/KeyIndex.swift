/// The position of each primary key in an atomic store file, for refusing duplicate keys and
/// following references: a flat table when the keys are dense (as files written by Stowage and
/// by Core Data are: `1…n`), a dictionary otherwise.
///
/// For example:
///
/// ```swift
/// var keys = KeyIndex(file.objects)
/// keys.insert(7, at: 0)        // true; a second 7 returns false
/// keys.position(of: 7)         // 0
/// ```
struct KeyIndex {
    private let lowest: Int64
    /// By `key - lowest`: the position plus one, 0 for none. Empty when the keys are sparse.
    private var table: [Int32] = []
    private var dictionary: [Int64: Int] = [:]
    private let isDense: Bool

    /// An empty index sized for the keys of `objects`.
    init(_ objects: [AtomicStoreObject]) {
        var lowest = Int64.max
        var highest = Int64.min
        objects.withUnsafeBufferPointer { objects in
            for position in objects.indices {
                lowest = min(lowest, objects[position].primaryKey)
                highest = max(highest, objects[position].primaryKey)
            }
        }
        let (span, overflow) = highest.subtractingReportingOverflow(lowest)
        isDense = !objects.isEmpty && !overflow && objects.count < Int32.max && span < 4 * Int64(objects.count) + 1024
        self.lowest = lowest
        if isDense {
            table = Array(repeating: 0, count: Int(span) + 1)
        } else {
            dictionary.reserveCapacity(objects.count)
        }
    }

    /// Records that `key` is at `position`; `false` (and nothing recorded) if another object has it.
    mutating func insert(_ key: Int64, at position: Int) -> Bool {
        if isDense {
            let slot = Int(key &- lowest)
            guard slot >= 0, slot < table.count, table[slot] == 0 else { return false }
            table[slot] = Int32(truncatingIfNeeded: position + 1)
            return true
        }
        return dictionary.updateValue(position, forKey: key) == nil
    }

    /// The position of the object with `key`, or `nil` when the file has none.
    func position(of key: Int64) -> Int? {
        if isDense {
            let (offset, overflow) = key.subtractingReportingOverflow(lowest)
            guard !overflow, offset >= 0, offset < Int64(table.count), table[Int(offset)] > 0 else { return nil }
            return Int(table[Int(offset)]) - 1
        }
        return dictionary[key]
    }
}
