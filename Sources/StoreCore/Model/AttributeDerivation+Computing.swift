import Foundation

extension AttributeDerivation {
    /// The value the derivation gives for a saved row, reading related rows through `resolve`;
    /// `nil` for `now()`, which depends on the save rather than on the row.
    package func value(for row: StoreSnapshot, resolve: (ManagedObjectID) -> StoreSnapshot?) -> StoreValue? {
        switch self {
        case .now:
            return nil
        case .value(let keys, let function):
            var source = row
            if keys.count == 2 {
                guard case .objectID(let id) = row[keys[0]], let destination = resolve(id) else { return .null }
                source = destination
            }
            let value = source[keys[keys.count - 1]]
            guard let function else { return value }
            guard case .string(let text) = value else { return .null }
            return .string(function.apply(text))
        case .count(let relationship):
            return .integer(Int64(row.toMany(forKey: relationship)?.count ?? 0))
        case .aggregate(let aggregate, let relationship, let key):
            let values = (row.toMany(forKey: relationship) ?? []).compactMap { resolve($0)?[key] }.filter { !$0.isNull }
            return aggregate.combine(values)
        }
    }
}

extension AttributeDerivation {
    /// What `now()` stores at `date` in an attribute of `type`: the date, or the seconds since
    /// 2001-01-01 in a `Double` or `Float` attribute (``nowTypes``).
    package static func nowValue(at date: Date, as type: AttributeType) -> StoreValue {
        switch type {
        case .double: .double(date.timeIntervalSinceReferenceDate)
        case .float: .float(Float(date.timeIntervalSinceReferenceDate))
        default: .date(date)
        }
    }
}

extension AttributeDerivation.TextFunction {
    /// The function applied to a string (Unicode case mapping; `canonical:` also folds diacritics).
    package func apply(_ text: String) -> String {
        switch self {
        case .lowercase: text.lowercased()
        case .uppercase: text.uppercased()
        case .canonical: ValueComparison.fold(text, [.caseInsensitive, .diacriticInsensitive])
        }
    }
}

extension AttributeDerivation.Aggregate {
    /// The aggregate of non-null values: the sum is 0 over none (an integer while every value is
    /// one and the total fits), the minimum and maximum are null.
    package func combine(_ values: [StoreValue]) -> StoreValue {
        switch self {
        case .sum:
            var integer: Int64 = 0
            var isInteger = true
            var real = 0.0
            for value in values {
                if isInteger, case .integer(let n) = value {
                    let (total, overflow) = integer.addingReportingOverflow(n)
                    if !overflow { integer = total; continue }
                    isInteger = false
                    real = Double(integer) + Double(n)
                    continue
                }
                if isInteger { isInteger = false; real = Double(integer) }
                real += value.numericValue ?? 0
            }
            return isInteger ? .integer(integer) : .double(real)
        case .min, .max:
            let wanted: ComparisonResult = self == .min ? .orderedAscending : .orderedDescending
            var best: StoreValue?
            for value in values {
                guard let current = best else { best = value; continue }
                if ValueComparison.order(value, current) == wanted { best = value }
            }
            return best ?? .null
        }
    }
}
