import Foundation

/// The aggregate functions of dictionary fetches (`count:`, `sum:`, `min:`, `max:`, `average:`,
/// `median:`, `mode:`, `stddev:`), applied to the values of a group of rows. NULLs are skipped,
/// as in SQL.
package enum AggregateFunction: String, CaseIterable {
    case count = "count:"
    case sum = "sum:"
    case min = "min:"
    case max = "max:"
    case average = "average:"
    case median = "median:"
    case mode = "mode:"
    case stddev = "stddev:"

    /// The result over `values`.
    package func apply(to values: [StoreValue]) -> StoreValue {
        let present = values.filter { !$0.isNull }
        switch self {
        case .count:
            return .integer(Int64(present.count))
        case .min, .max:
            let ordered = present.sorted { ValueComparison.order($0, $1) == .orderedAscending }
            return (self == .min ? ordered.first : ordered.last) ?? .null
        case .mode:
            var counts: [StoreValue: Int] = [:]
            for value in present { counts[value, default: 0] += 1 }
            let best = counts.max { $0.value < $1.value || ($0.value == $1.value && ValueComparison.order($0.key, $1.key) == .orderedDescending) }
            return best?.key ?? .null
        case .sum, .average, .median, .stddev:
            let numbers = present.compactMap(\.numericValue)
            guard !numbers.isEmpty else { return self == .sum ? .integer(0) : .null }
            switch self {
            case .sum:
                let allIntegers = present.allSatisfy { if case .integer = $0 { true } else { false } }
                let total = numbers.reduce(0, +)
                return allIntegers && abs(total) < 9e15 ? .integer(Int64(total)) : .double(total)
            case .average:
                return .double(numbers.reduce(0, +) / Double(numbers.count))
            case .median:
                let sorted = numbers.sorted()
                let middle = sorted.count / 2
                return .double(sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle])
            default:
                let mean = numbers.reduce(0, +) / Double(numbers.count)
                let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
                return .double(variance.squareRoot())
            }
        }
    }
}
