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

    /// Whether the element with keys `a` comes before the one with keys `b`.
    package func precedes(_ a: [StoreValue], _ b: [StoreValue]) -> Bool {
        for (index, descriptor) in descriptors.enumerated() {
            let result = Self.order(a[index], b[index], descriptor.comparison)
            if result == .orderedSame { continue }
            return (result == .orderedAscending) == descriptor.ascending
        }
        return false
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
            if precedes(keys[i], keys[j]) { return true }
            if precedes(keys[j], keys[i]) { return false }
            return i < j
        }
        return order.map { elements[$0] }
    }
}
