import Foundation

/// Orders evaluation sources by a list of sort descriptors; NULL sorts first ascending, as in Core Data.
package struct SortComparator {
    let descriptors: [StoreSortDescriptor]
    let evaluator = PredicateEvaluator()

    package init(_ descriptors: [StoreSortDescriptor]) { self.descriptors = descriptors }

    /// The sort keys of one source, computed once per element before sorting.
    package func keys(for source: any PredicateEvaluationSource) throws -> [StoreValue] {
        try descriptors.map { try evaluator.value(of: .keyPath($0.keyPath), on: source).storeValue }
    }

    static func order(_ a: StoreValue, _ b: StoreValue, _ comparison: StoreSortDescriptor.Comparison) -> ComparisonResult {
        if a.isNull || b.isNull { return a.isNull == b.isNull ? .orderedSame : (a.isNull ? .orderedAscending : .orderedDescending) }
        if case .string(let x) = a, case .string(let y) = b {
            switch comparison {
            case .default: return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
            case .caseInsensitive: return x.caseInsensitiveCompare(y)
            case .localized: return x.localizedCompare(y)
            case .localizedCaseInsensitive: return x.localizedCaseInsensitiveCompare(y)
            }
        }
        return ValueComparison.order(a, b) ?? .orderedSame
    }

    /// Sorts elements by their precomputed keys (stable).
    package func sort<Element>(_ elements: [Element], keys: [[StoreValue]]) -> [Element] {
        guard !descriptors.isEmpty else { return elements }
        let order = elements.indices.sorted { i, j in
            switch compare(keys[i], keys[j]) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: i < j
            }
        }
        return order.map { elements[$0] }
    }

    /// Sorts elements by keys laid out flat: the keys of element `i` are
    /// `keys[i * descriptors.count ..< (i + 1) * descriptors.count]` (stable).
    ///
    /// For example:
    ///
    /// ```swift
    /// var keys: [StoreValue] = []
    /// for snapshot in matches { try sortKeys.appendKeys(of: snapshot, to: &keys) }
    /// let sorted = comparator.sort(matches, flatKeys: keys)
    /// ```
    package func sort<Element>(_ elements: [Element], flatKeys keys: [StoreValue]) -> [Element] {
        let width = descriptors.count
        guard width > 0, keys.count == elements.count * width else { return elements }
        let order = keys.withUnsafeBufferPointer { keys in
            if let order = numericOrder(of: keys) { return order }
            return elements.indices.sorted { i, j in
                switch compare(UnsafeBufferPointer(rebasing: keys[(i * width)..<(i * width + width)]),
                               UnsafeBufferPointer(rebasing: keys[(j * width)..<(j * width + width)])) {
                case .orderedAscending: true
                case .orderedDescending: false
                case .orderedSame: i < j
                }
            }
        }
        return order.map { elements[$0] }
    }

    /// Where the element with keys `a` goes relative to the one with keys `b`: the first
    /// descriptor whose keys differ decides, in its direction.
    @inline(__always)
    func compare<Keys: RandomAccessCollection<StoreValue>>(_ a: Keys, _ b: Keys) -> ComparisonResult where Keys.Index == Int {
        for (offset, descriptor) in descriptors.enumerated() {
            let result = Self.order(a[a.startIndex + offset], b[b.startIndex + offset], descriptor.comparison)
            if result == .orderedSame { continue }
            return (result == .orderedAscending) == descriptor.ascending ? .orderedAscending : .orderedDescending
        }
        return .orderedSame
    }
}
