import Foundation

/// The binary arithmetic functions with Core Data's value rules: NULL in, NULL out; integers
/// stay integers until they overflow (then doubles); `divide:by:` and `raise:toPower:` give
/// doubles; a date plus or minus seconds is a date, and a date minus a date is seconds.
enum Arithmetic {
    static func apply(_ name: String, _ a: StoreValue, _ b: StoreValue) throws -> StoreValue {
        if a.isNull || b.isNull { return .null }
        if let date = try dateArithmetic(name, a, b) { return date }
        if case .integer(let x) = a, case .integer(let y) = b, let result = integerResult(name, x, y) { return result }
        guard let x = a.numericValue, let y = b.numericValue else {
            throw FetchError(.invalidArgument, "\(name) needs numbers, got the \(a.kindName) \(a) and the \(b.kindName) \(b)")
        }
        switch name {
        case "add:to:": return .double(x + y)
        case "from:subtract:": return .double(x - y)
        case "multiply:by:": return .double(x * y)
        case "divide:by:": return .double(x / y)
        case "modulus:by:": return y == 0 ? .null : .double(x.truncatingRemainder(dividingBy: y))
        case "raise:toPower:": return .double(Foundation.pow(x, y))
        default:
            throw FetchError(.invalidArgument, "\(name) needs integers, got \(a) and \(b)")
        }
    }

    private static func integerResult(_ name: String, _ x: Int64, _ y: Int64) -> StoreValue? {
        let result: (partialValue: Int64, overflow: Bool)
        switch name {
        case "add:to:": result = x.addingReportingOverflow(y)
        case "from:subtract:": result = x.subtractingReportingOverflow(y)
        case "multiply:by:": result = x.multipliedReportingOverflow(by: y)
        case "modulus:by:":
            if y == 0 { return .null }
            result = x.remainderReportingOverflow(dividingBy: y)
        case "bitwiseAnd:with:": return .integer(x & y)
        case "bitwiseOr:with:": return .integer(x | y)
        case "bitwiseXor:with:": return .integer(x ^ y)
        case "leftshift:by:": return .integer(y >= 64 || y < 0 ? 0 : x << y)
        case "rightshift:by:": return .integer(y >= 64 || y < 0 ? (x < 0 ? -1 : 0) : x >> y)
        default: return nil
        }
        if result.overflow { return nil }
        return .integer(result.partialValue)
    }

    private static func dateArithmetic(_ name: String, _ a: StoreValue, _ b: StoreValue) throws -> StoreValue? {
        switch (name, a, b) {
        case ("add:to:", .date(let d), _) where b.numericValue != nil:
            return .date(d.addingTimeInterval(b.numericValue ?? 0))
        case ("add:to:", _, .date(let d)) where a.numericValue != nil:
            return .date(d.addingTimeInterval(a.numericValue ?? 0))
        case ("from:subtract:", .date(let x), .date(let y)):
            return .double(x.timeIntervalSince(y))
        case ("from:subtract:", .date(let d), _) where b.numericValue != nil:
            return .date(d.addingTimeInterval(-(b.numericValue ?? 0)))
        default:
            return nil
        }
    }
}
