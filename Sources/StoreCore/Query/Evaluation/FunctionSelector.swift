import Foundation

/// The methods `FUNCTION(receiver, 'selector', arguments…)` can call: Foundation methods of
/// strings, numbers and dates that Core Data users call in predicates, with the same results on
/// Linux (NSString lengths and indexes count UTF-16 code units, as on Apple platforms).
///
/// | Receiver | Selectors |
/// |----------|-----------|
/// | string   | `lowercaseString` `uppercaseString` `capitalizedString` `length` `intValue` `integerValue` `longLongValue` `doubleValue` `floatValue` `boolValue` `description` `hasPrefix:` `hasSuffix:` `containsString:` `stringByAppendingString:` `substringToIndex:` `substringFromIndex:` |
/// | number   | `stringValue` `description` `intValue` `integerValue` `longLongValue` `doubleValue` `floatValue` `boolValue` |
/// | date     | `timeIntervalSinceReferenceDate` `timeIntervalSince1970` `timeIntervalSinceNow` `timeIntervalSinceDate:` `dateByAddingTimeInterval:` `description` |
///
/// A NULL receiver gives NULL (a message to nil); a receiver of another kind, or an argument of
/// the wrong kind, is `FetchError.invalidArgument`. Other selectors do not parse.
///
/// For example:
///
/// ```swift
/// try FunctionSelector.apply("hasPrefix:", to: "Ridgecrest", arguments: ["Ridge"])   // .boolean(true)
/// ```
package enum FunctionSelector {
    /// What a selector returns, for compilers that need the kind ahead of time.
    package enum Result: Sendable {
        case string, integer, double, boolean, date
    }

    /// The kinds of receiver a selector accepts.
    package struct Receivers: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        package static let string = Receivers(rawValue: 1)
        package static let number = Receivers(rawValue: 2)
        package static let date = Receivers(rawValue: 4)
    }

    /// What the arguments after the receiver must be.
    package enum Argument: Sendable {
        case string, integer, date
        /// A number of seconds (not a boolean).
        case seconds
    }

    package struct Signature: Sendable {
        package let receivers: Receivers
        package let result: Result
        /// The number of arguments after the receiver (the selector's colons).
        package var argumentCount: Int
        /// The kind of each argument (they are all of one kind).
        package var argument: Argument?
    }

    /// Every selector ``apply(_:to:arguments:)`` knows.
    package static let signatures: [String: Signature] = {
        var table: [String: Signature] = [:]
        func add(_ names: [String], _ receivers: Receivers, _ result: Result, _ argument: Argument? = nil) {
            for name in names {
                table[name] = Signature(receivers: receivers, result: result, argumentCount: name.filter { $0 == ":" }.count, argument: argument)
            }
        }
        add(["lowercaseString", "uppercaseString", "capitalizedString"], .string, .string)
        add(["stringByAppendingString:"], .string, .string, .string)
        add(["substringToIndex:", "substringFromIndex:"], .string, .string, .integer)
        add(["length"], .string, .integer)
        add(["hasPrefix:", "hasSuffix:", "containsString:"], .string, .boolean, .string)
        add(["intValue", "integerValue", "longLongValue"], [.string, .number], .integer)
        add(["doubleValue", "floatValue"], [.string, .number], .double)
        add(["boolValue"], [.string, .number], .boolean)
        add(["stringValue"], .number, .string)
        add(["description"], [.string, .number, .date], .string)
        add(["timeIntervalSinceReferenceDate", "timeIntervalSince1970", "timeIntervalSinceNow"], .date, .double)
        add(["timeIntervalSinceDate:"], .date, .double, .date)
        add(["dateByAddingTimeInterval:"], .date, .date, .seconds)
        return table
    }()

    /// The selectors, sorted, for error messages.
    package static var names: String { signatures.keys.sorted().joined(separator: ", ") }

    /// Calls `selector` on `receiver`.
    package static func apply(_ selector: String, to receiver: StoreValue, arguments: [StoreValue]) throws -> StoreValue {
        guard let signature = signatures[selector] else {
            throw FetchError(.unsupported, "FUNCTION cannot call \(selector); it calls \(names)")
        }
        guard arguments.count == signature.argumentCount else {
            throw FetchError(.invalidArgument, "\(selector) takes \(signature.argumentCount) argument(s), got \(arguments.count)")
        }
        if receiver.isNull { return .null }
        func refuse() -> FetchError {
            FetchError(.invalidArgument, "\(selector) is not a method of the \(receiver.kindName) \(receiver)")
        }
        switch receiver {
        case .string(let text):
            guard signature.receivers.contains(.string) else { throw refuse() }
            return try string(selector, text, arguments)
        case .date(let date):
            guard signature.receivers.contains(.date) else { throw refuse() }
            return try self.date(selector, date, arguments)
        default:
            guard signature.receivers.contains(.number), receiver.numericValue != nil else { throw refuse() }
            return number(selector, receiver)
        }
    }

    private static func argument(_ selector: String, _ value: StoreValue) throws -> String {
        guard case .string(let text) = value else {
            throw FetchError(.invalidArgument, "\(selector) needs a string, got the \(value.kindName) \(value)")
        }
        return text
    }

    private static func string(_ selector: String, _ text: String, _ arguments: [StoreValue]) throws -> StoreValue {
        switch selector {
        case "lowercaseString": return .string(text.lowercased())
        case "uppercaseString": return .string(text.uppercased())
        case "capitalizedString": return .string(text.capitalized)
        case "length": return .integer(Int64(text.utf16.count))
        case "description": return .string(text)
        case "intValue": return .integer(Int64(clamping: Int32(clamping: leadingInteger(text))))
        case "integerValue", "longLongValue": return .integer(leadingInteger(text))
        case "doubleValue": return .double(leadingDouble(text))
        case "floatValue": return .double(Double(Float(leadingDouble(text))))
        case "boolValue": return .boolean(stringBool(text))
        case "hasPrefix:", "hasSuffix:", "containsString:":
            let other = try argument(selector, arguments[0])
            // NSString compares UTF-16 code units literally; an empty needle never matches.
            if other.isEmpty { return .boolean(false) }
            let haystack = Array(text.utf16), needle = Array(other.utf16)
            switch selector {
            case "hasPrefix:": return .boolean(haystack.starts(with: needle))
            case "hasSuffix:": return .boolean(haystack.reversed().starts(with: needle.reversed()))
            default: return .boolean(contains(haystack, needle))
            }
        case "stringByAppendingString:":
            return .string(text + (try argument(selector, arguments[0])))
        default:  // substringToIndex:, substringFromIndex:
            guard case .integer(let index) = arguments[0] else {
                throw FetchError(.invalidArgument, "\(selector) needs an integer, got the \(arguments[0].kindName) \(arguments[0])")
            }
            let units = Array(text.utf16)
            guard index >= 0, index <= units.count else {
                throw FetchError(.invalidArgument, "\(selector) \(index) is out of range for a string of length \(units.count)")
            }
            let slice = selector == "substringToIndex:" ? units[..<Int(index)] : units[Int(index)...]
            return .string(String(decoding: slice, as: UTF16.self))
        }
    }

    private static func contains(_ haystack: [UInt16], _ needle: [UInt16]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }

    /// NSString's `integerValue`: optional whitespace, sign and digits; 0 when there are none;
    /// saturating on overflow.
    private static func leadingInteger(_ text: String) -> Int64 {
        var scalars = Substring(text).unicodeScalars.drop { $0.properties.isWhitespace }
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var value: Int64 = 0
        for scalar in scalars {
            guard scalar.value >= 48, scalar.value <= 57 else { break }
            let digit = Int64(scalar.value - 48)
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if o1 || o2 { return negative ? .min : .max }
            value = sum
        }
        return value
    }

    /// NSString's `doubleValue`: the longest leading decimal number (after whitespace); 0 when none.
    private static func leadingDouble(_ text: String) -> Double {
        let scalars = Array(Substring(text).unicodeScalars.drop { $0.properties.isWhitespace })
        var best = 0.0
        var end = 0
        // The longest prefix made of number characters that parses.
        while end < scalars.count, "0123456789+-.eE".unicodeScalars.contains(scalars[end]) { end += 1 }
        while end > 0 {
            var prefix = String.UnicodeScalarView()
            prefix.append(contentsOf: scalars[0..<end])
            if let value = Double(String(prefix)), value.isFinite {
                best = value
                break
            }
            end -= 1
        }
        return best
    }

    /// NSString's `boolValue`: true when, after whitespace and an optional sign and zeros, the
    /// text starts with Y, y, T, t or a digit 1–9.
    private static func stringBool(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars.drop { $0.properties.isWhitespace }
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
        scalars = scalars.drop { $0 == "0" }
        guard let first = scalars.first else { return false }
        return "YyTt123456789".unicodeScalars.contains(first)
    }

    private static func number(_ selector: String, _ value: StoreValue) -> StoreValue {
        let double = value.numericValue ?? 0
        func integer() -> Int64 {
            switch value {
            case .integer(let v): return v
            case .boolean(let v): return v ? 1 : 0
            default:
                guard double.isFinite else { return double.isNaN ? 0 : (double < 0 ? .min : .max) }
                return Int64(exactly: double.rounded(.towardZero)) ?? (double < 0 ? .min : .max)
            }
        }
        switch selector {
        case "stringValue", "description": return .string(numberText(value))
        case "intValue": return .integer(Int64(Int32(truncatingIfNeeded: integer())))
        case "integerValue", "longLongValue": return .integer(integer())
        case "doubleValue": return .double(double)
        case "floatValue": return .double(Double(Float(double)))
        default: return .boolean(double != 0)  // boolValue
        }
    }

    /// A number as NSNumber's `stringValue` writes it: integers in decimal, booleans as 1 or 0,
    /// doubles in their shortest form (`2.5`, `6`, `1e+20`).
    private static func numberText(_ value: StoreValue) -> String {
        switch value {
        case .integer(let v): return String(v)
        case .boolean(let v): return v ? "1" : "0"
        case .decimal(let v): return "\(v)"
        default:
            let double = value.numericValue ?? 0
            if double.isNaN { return "nan" }
            if double.isInfinite { return double < 0 ? "-inf" : "inf" }
            if double == double.rounded(), Swift.abs(double) < 1e15 { return String(Int64(double)) }
            return "\(double)"
        }
    }

    private static func date(_ selector: String, _ date: Date, _ arguments: [StoreValue]) throws -> StoreValue {
        func seconds(_ value: StoreValue) throws -> Double {
            if case .boolean = value {
                throw FetchError(.invalidArgument, "\(selector) needs a number of seconds, got the \(value.kindName) \(value)")
            }
            guard let number = value.numericValue else {
                throw FetchError(.invalidArgument, "\(selector) needs a number of seconds, got the \(value.kindName) \(value)")
            }
            return number
        }
        switch selector {
        case "timeIntervalSinceReferenceDate": return .double(date.timeIntervalSinceReferenceDate)
        case "timeIntervalSince1970": return .double(date.timeIntervalSince1970)
        case "timeIntervalSinceNow": return .double(date.timeIntervalSinceNow)
        case "timeIntervalSinceDate:":
            guard case .date(let other) = arguments[0] else {
                throw FetchError(.invalidArgument, "\(selector) needs a date, got the \(arguments[0].kindName) \(arguments[0])")
            }
            return .double(date.timeIntervalSince(other))
        case "dateByAddingTimeInterval:": return .date(date.addingTimeInterval(try seconds(arguments[0])))
        default: return .string(dateDescription(date))  // description
        }
    }

    /// NSDate's `description`: `2001-01-01 00:16:40 +0000`.
    static func dateDescription(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { let v = n ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}
