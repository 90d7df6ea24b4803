import Foundation

/// Sorting by one numeric key without comparing `StoreValue`s: the common "newest first" or
/// "largest first" request. When every key is a non-NaN double, float or date (compared as
/// seconds, as ``ValueComparison`` compares them), or every key is an integer, the keys are
/// copied into a flat array next to their positions and sorted there; ties keep their order,
/// as in the general sort. Anything else (NULLs, strings, mixed kinds) takes the general sort.
///
/// For example (inside StoreCore):
///
/// ```swift
/// if let order = comparator.numericOrder(of: keys) { sorted = order.map { matches[$0] } }
/// ```
extension SortComparator {
    private struct Keyed<Key: Comparable> {
        let key: Key
        let position: Int32
    }

    /// The positions of `keys` (one per element, for a single descriptor; its comparison only
    /// concerns strings) in sorted order, or `nil` when the keys are not all of one numeric kind.
    func numericOrder(of keys: UnsafeBufferPointer<StoreValue>) -> [Int]? {
        guard descriptors.count == 1, keys.count < Int(Int32.max), let first = keys.first else { return nil }
        let ascending = descriptors[0].ascending
        if case .integer = first {
            var keyed: [Keyed<Int64>] = []
            keyed.reserveCapacity(keys.count)
            for (position, value) in keys.enumerated() {
                guard case .integer(let key) = value else { return nil }
                keyed.append(Keyed(key: key, position: Int32(position)))
            }
            return Self.order(&keyed, ascending: ascending)
        }
        var keyed: [Keyed<Double>] = []
        keyed.reserveCapacity(keys.count)
        for (position, value) in keys.enumerated() {
            let key: Double
            switch value {
            case .double(let number): key = number
            case .float(let number): key = Double(number)
            case .date(let date): key = date.timeIntervalSinceReferenceDate
            default: return nil
            }
            guard !key.isNaN else { return nil }
            keyed.append(Keyed(key: key, position: Int32(position)))
        }
        return Self.order(&keyed, ascending: ascending)
    }

    private static func order<Key>(_ keyed: inout [Keyed<Key>], ascending: Bool) -> [Int] {
        if ascending {
            keyed.sort { $0.key < $1.key || ($0.key == $1.key && $0.position < $1.position) }
        } else {
            keyed.sort { $0.key > $1.key || ($0.key == $1.key && $0.position < $1.position) }
        }
        return keyed.map { Int($0.position) }
    }
}
