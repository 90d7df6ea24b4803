import Foundation

/// Key-path collection operators (`@count`, `@sum`, `@avg`, `@min`, `@max`,
/// `@distinctUnionOfObjects`, `@unionOfObjects`) and the aggregate functions that share their
/// arithmetic (`sum:`, `count:`, `min:`, `max:`, `average:`, `median:`, `mode:`, `stddev:`).
///
/// NULL elements are skipped by every aggregate except `@count`/`count:`; an empty collection
/// sums to 0 and has NULL average, minimum and maximum.
enum CollectionOperator {
    /// The names of the aggregate functions ``function(_:_:)`` knows.
    static let aggregateFunctionNames: Set<String> = ["count:", "sum:", "average:", "min:", "max:", "median:", "mode:", "stddev:"]

    static func apply(_ name: String, to elements: [EvaluatedValue]) throws -> EvaluatedValue {
        let flat = elements.flatMap { element -> [EvaluatedValue] in
            if case .collection(let nested) = element { return nested }
            return [element]
        }
        switch name {
        case "@count": return .value(.integer(Int64(flat.count)))
        case "@sum": return .value(try sum(values(flat)))
        case "@avg": return .value(try average(values(flat)))
        case "@min": return .value(extreme(values(flat), .orderedAscending))
        case "@max": return .value(extreme(values(flat), .orderedDescending))
        case "@unionOfObjects": return .collection(flat.filter { !$0.storeValue.isNull || isObject($0) })
        case "@distinctUnionOfObjects":
            var seen = Set<StoreValue>()
            return .collection(flat.filter { element in
                let key = element.storeValue
                return (!key.isNull || isObject(element)) && seen.insert(key).inserted
            })
        default:
            throw FetchError(.invalidKeyPath, "unknown collection operator \(name); expected @count, @sum, @avg, @min, @max or @distinctUnionOfObjects")
        }
    }

    /// The aggregate function `name` (`sum:`, `median:`…) over `elements`, or `nil` when `name`
    /// is not an aggregate function.
    static func function(_ name: String, _ elements: [EvaluatedValue]) throws -> EvaluatedValue? {
        let list = values(elements)
        switch name {
        case "count:": return .value(.integer(Int64(elements.count)))
        case "sum:": return .value(try sum(list))
        case "average:": return .value(try average(list))
        case "min:": return .value(extreme(list, .orderedAscending))
        case "max:": return .value(extreme(list, .orderedDescending))
        case "median:":
            let numbers = try doubles(list).sorted()
            guard !numbers.isEmpty else { return .value(.null) }
            let middle = numbers.count / 2
            return .value(.double(numbers.count % 2 == 1 ? numbers[middle] : (numbers[middle - 1] + numbers[middle]) / 2))
        case "mode:":
            var counts: [StoreValue: Int] = [:]
            for value in list { counts[value, default: 0] += 1 }
            let top = counts.values.max() ?? 0
            return .collection(list.reduce(into: [StoreValue]()) { result, value in
                if counts[value] == top, !result.contains(value) { result.append(value) }
            }.map(EvaluatedValue.value))
        case "stddev:":
            let numbers = try doubles(list)
            guard !numbers.isEmpty else { return .value(.null) }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
            return .value(.double(variance.squareRoot()))
        default:
            return nil
        }
    }

    private static func isObject(_ value: EvaluatedValue) -> Bool {
        if case .object = value { return true }
        return false
    }

    /// The non-NULL store values of the elements.
    private static func values(_ elements: [EvaluatedValue]) -> [StoreValue] {
        elements.map(\.storeValue).filter { !$0.isNull }
    }

    private static func doubles(_ values: [StoreValue]) throws -> [Double] {
        try values.map { value in
            guard let number = value.numericValue else {
                throw FetchError(.invalidArgument, "cannot aggregate the \(value.kindName) \(value) as a number")
            }
            return number
        }
    }

    /// The sum: an integer while every value is an integer and it fits, else a double.
    static func sum(_ values: [StoreValue]) throws -> StoreValue {
        var integer: Int64 = 0
        var allIntegers = true
        for value in values {
            guard case .integer(let v) = value else {
                allIntegers = false
                break
            }
            let (result, overflow) = integer.addingReportingOverflow(v)
            if overflow {
                allIntegers = false
                break
            }
            integer = result
        }
        if allIntegers { return .integer(integer) }
        return .double(try doubles(values).reduce(0, +))
    }

    static func average(_ values: [StoreValue]) throws -> StoreValue {
        guard !values.isEmpty else { return .null }
        return .double(try doubles(values).reduce(0, +) / Double(values.count))
    }

    private static func extreme(_ values: [StoreValue], _ wanted: ComparisonResult) -> StoreValue {
        var best: StoreValue?
        for value in values {
            guard let current = best else {
                best = value
                continue
            }
            if ValueComparison.order(value, current) == wanted { best = value }
        }
        return best ?? .null
    }
}
