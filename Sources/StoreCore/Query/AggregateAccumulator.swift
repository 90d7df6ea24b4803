/// One aggregate of a dictionary fetch (`count:`, `sum:`, `average:`, `min:`, `max:`, `median:`,
/// `mode:`, `stddev:`) accumulated value by value as rows are met, instead of collecting each
/// group's rows first.
///
/// The result is exactly ``CollectionOperator/function(_:_:)``'s over the same non-NULL values
/// in the same order — sums add in row order, so doubles round the same way, and a value that
/// is not a number raises the same error. The median, mode and standard deviation need every
/// value, so they still collect them.
///
/// For example:
///
/// ```swift
/// var average = AggregateAccumulator("average:")
/// average.add(.double(2.5))
/// average.add(.integer(4))
/// try average.result()     // .double(3.25)
/// ```
struct AggregateAccumulator {
    private enum Kind {
        case count, sum, average, min, max
        /// Any other function: every value kept, and ``CollectionOperator`` asked at the end.
        case collecting
    }

    let function: String
    private let kind: Kind
    private var count = 0
    private var integerSum: Int64 = 0
    /// Whether every value so far was an integer and their sum fits in `Int64`.
    private var integersOnly = true
    private var doubleSum = 0.0
    /// The first value that is not a number, which makes sums and averages throw.
    private var notANumber: StoreValue?
    private var extreme: StoreValue?
    private var collected: [StoreValue] = []

    init(_ function: String) {
        self.function = function
        switch function {
        case "count:": kind = .count
        case "sum:": kind = .sum
        case "average:": kind = .average
        case "min:": kind = .min
        case "max:": kind = .max
        default: kind = .collecting
        }
    }

    /// Adds one value; NULL is skipped, as aggregates over a column skip NULLs in SQL.
    @inline(__always)
    mutating func add(_ value: StoreValue) {
        if value.isNull { return }
        count += 1
        switch kind {
        case .count:
            break
        case .sum, .average:
            addNumber(value)
        case .min:
            if let current = extreme {
                if ValueComparison.order(value, current) == .orderedAscending { extreme = value }
            } else {
                extreme = value
            }
        case .max:
            if let current = extreme {
                if ValueComparison.order(value, current) == .orderedDescending { extreme = value }
            } else {
                extreme = value
            }
        case .collecting:
            collected.append(value)
        }
    }

    private mutating func addNumber(_ value: StoreValue) {
        if integersOnly {
            if case .integer(let v) = value {
                let (sum, overflow) = integerSum.addingReportingOverflow(v)
                if overflow { integersOnly = false } else { integerSum = sum }
            } else {
                integersOnly = false
            }
        }
        if let number = value.numericValue {
            doubleSum += number
        } else if notANumber == nil {
            notANumber = value
        }
    }

    /// The aggregate of the values added (for `mode:`, the first of the most frequent).
    ///
    /// - Throws: ``FetchError`` (code `invalidArgument`) when a sum or average met a value that is not a number.
    func result() throws -> StoreValue {
        switch kind {
        case .count:
            return .integer(Int64(count))
        case .sum:
            if integersOnly { return .integer(integerSum) }
            try checkNumbers()
            return .double(doubleSum)
        case .average:
            guard count > 0 else { return .null }
            try checkNumbers()
            return .double(doubleSum / Double(count))
        case .min, .max:
            return extreme ?? .null
        case .collecting:
            switch try CollectionOperator.function(function, collected.map(EvaluatedValue.value)) {
            case .collection(let modes)?: return modes.first?.storeValue ?? .null
            case let single?: return single.storeValue
            case nil: return .null
            }
        }
    }

    /// Throws the error ``CollectionOperator`` throws for the first value that is not a number.
    private func checkNumbers() throws {
        guard let notANumber else { return }
        _ = try CollectionOperator.average([notANumber])
    }
}
