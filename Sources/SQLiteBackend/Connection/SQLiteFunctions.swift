import Foundation
internal import CSQLite
import StoreCore
import StoreSQL

/// The SQL functions every connection registers, so that string comparisons in SQL give the
/// same answers as the in-memory evaluator:
///
/// - `stowage_fold(text, options)`: the text with case and/or diacritics folded (`[c]`, `[d]`).
/// - `stowage_like(text, pattern, options)`: Core Data's `LIKE` (`*`, `?`, whole string).
/// - `stowage_matches(text, pattern, options)`: `MATCHES` (ICU regular expression, whole string).
/// - `REGEXP(pattern, text)`: SQLite's `text REGEXP pattern` operator, the same matching.
/// - `stowage_lowercase(text)`, `stowage_uppercase(text)`: Unicode case mapping, as the
///   `lowercase:`/`uppercase:` expression functions (SQLite's `lower`/`upper` map ASCII only).
/// - `stowage_cast(value, type)`: `CAST(value, 'NSNumber' | 'NSString' | …)` of a column value.
/// - `stowage_function(selector, kind, receiver, kind, argument, …)`: `FUNCTION(receiver,
///   'selector', …)` by the evaluator's ``FunctionSelector``; each value follows its kind (`s`
///   string, `i` integer, `r` double, `b` boolean, `t` date, `?` by storage class).
/// - Collations `STOWAGE_CASE_INSENSITIVE`, `STOWAGE_LOCALIZED`, `STOWAGE_LOCALIZED_CASE_INSENSITIVE`:
///   the string orders of the sort descriptor comparisons, by the same Foundation calls as in memory.
/// - `stowage_convert(value, from, to)`: a migrated attribute's value converted from one
///   attribute type to another (type names as ``/StoreCore/AttributeType/name``), by
///   ``/StoreCore/AttributeConversion/convert(_:)`` — the same conversion as atomic stores; a value the
///   destination cannot hold fails the statement.
/// - `NSCoreDataNow()`, `NSCoreDataToLower(text)`, `NSCoreDataToUpper(text)`,
///   `NSCoreDataCanonical(text)`: what the triggers computing derived attributes call (Core
///   Data's names, so an Apple-written store's triggers work too).
/// - `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue(…)`, `NSCoreDataDATriggerUpdatedAffectedObjectValue(…)`:
///   how Core Data's triggers tell its context a derived value changed; no-ops here (the context
///   reads derived values back after each save).
///
/// `options` is ``/StoreCore/StoreComparison/Options``' raw value. A bad regular expression fails the
/// statement with the same message as the in-memory evaluator.
enum SQLiteFunctions {
    static let foldName = "stowage_fold"
    static let likeName = "stowage_like"
    static let matchesName = "stowage_matches"
    static let lowercaseName = "stowage_lowercase"
    static let uppercaseName = "stowage_uppercase"
    static let castName = "stowage_cast"
    static let functionName = "stowage_function"
    static let convertName = "stowage_convert"
    static let caseInsensitiveCollation = "STOWAGE_CASE_INSENSITIVE"
    static let localizedCollation = "STOWAGE_LOCALIZED"
    static let localizedCaseInsensitiveCollation = "STOWAGE_LOCALIZED_CASE_INSENSITIVE"

    private static let expressions = RegularExpressionCache()

    static func register(on connection: SQLiteConnection) {
        create(foldName, arity: 2, on: connection) { arguments in
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            return .text(ValueComparison.fold(text, options(arguments[1])))
        }
        create(likeName, arity: 3, on: connection) { arguments in
            guard case .text(let text) = arguments[0], case .text(let pattern) = arguments[1] else { return .null }
            let options = options(arguments[2])
            return .integer(LikePattern.matches(ValueComparison.fold(text, options), ValueComparison.fold(pattern, options)) ? 1 : 0)
        }
        create(matchesName, arity: 3, on: connection) { arguments in
            guard case .text(let text) = arguments[0], case .text(let pattern) = arguments[1] else { return .null }
            return .integer(try expressions.matches(text, pattern: pattern, options: options(arguments[2])) ? 1 : 0)
        }
        create("REGEXP", arity: 2, on: connection) { arguments in
            guard case .text(let pattern) = arguments[0], case .text(let text) = arguments[1] else { return .null }
            return .integer(try expressions.matches(text, pattern: pattern, options: []) ? 1 : 0)
        }
        create(lowercaseName, arity: 1, on: connection) { arguments in
            guard case .text(let text) = arguments[0] else { return .null }
            return .text(text.lowercased())
        }
        create(uppercaseName, arity: 1, on: connection) { arguments in
            guard case .text(let text) = arguments[0] else { return .null }
            return .text(text.uppercased())
        }
        create(castName, arity: 2, on: connection) { arguments in
            guard case .text(let type) = arguments[1] else { return .null }
            let value: StoreValue
            switch arguments[0] {
            case .null: value = .null
            case .integer(let number): value = .integer(number)
            case .real(let number): value = .double(number)
            case .text(let text): value = .string(text)
            case .blob(let data): value = .data(data)
            }
            return ConstantCast.cast(value, to: type).map(SQLiteValueCoder.encode) ?? .null
        }
        // Not deterministic: `timeIntervalSinceNow` reads the clock.
        create(functionName, arity: -1, deterministic: false, on: connection) { arguments in
            guard arguments.count >= 3, arguments.count % 2 == 1, case .text(let selector) = arguments[0] else { return .null }
            var values: [StoreValue] = []
            for pair in stride(from: 1, to: arguments.count, by: 2) {
                guard case .text(let kind) = arguments[pair] else { return .null }
                values.append(storeValue(arguments[pair + 1], kind: kind))
            }
            return SQLiteValueCoder.encode(try FunctionSelector.apply(selector, to: values[0], arguments: Array(values.dropFirst())))
        }
        collate(caseInsensitiveCollation, on: connection) { $0.caseInsensitiveCompare($1) }
        collate(localizedCollation, on: connection) { $0.localizedCompare($1) }
        collate(localizedCaseInsensitiveCollation, on: connection) { $0.localizedCaseInsensitiveCompare($1) }
        // Derived attributes: the functions the triggers of Core Data's stores (and Stowage's)
        // call. Dates are seconds since 2001-01-01, as Core Data stores them.
        create(convertName, arity: 3, on: connection) { arguments in
            guard case .text(let from) = arguments[1], case .text(let to) = arguments[2],
                let source = convertibleTypes[from], let destination = convertibleTypes[to]
            else { throw StoreError(.unsupportedRequest, "\(convertName) takes two attribute type names") }
            let value = SQLiteValueCoder.decode(arguments[0], as: source)
            return SQLiteValueCoder.encode(try AttributeConversion(from: source, to: destination).convert(value))
        }
        create("NSCoreDataNow", arity: 0, deterministic: false, on: connection) { _ in
            .real(Date().timeIntervalSinceReferenceDate)
        }
        for function in [AttributeDerivation.TextFunction.lowercase, .uppercase, .canonical] {
            create(SQLSchema.sqlFunction(for: function), arity: 1, on: connection) { arguments in
                guard case .text(let text) = arguments[0] else { return arguments[0] }
                return .text(function.apply(text))
            }
        }
        create("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", arity: -1, deterministic: false, on: connection) { _ in .null }
        create("NSCoreDataDATriggerUpdatedAffectedObjectValue", arity: -1, deterministic: false, on: connection) { _ in .null }
    }

    /// A SQL value as the store value of `kind` (see `stowage_function`).
    private static func storeValue(_ value: SQLValue, kind: String) -> StoreValue {
        switch (value, kind) {
        case (.null, _): return .null
        case (.integer(let n), "b"): return .boolean(n != 0)
        case (.integer(let n), "t"): return .date(Date(timeIntervalSinceReferenceDate: Double(n)))
        case (.real(let n), "t"): return .date(Date(timeIntervalSinceReferenceDate: n))
        case (.integer(let n), "r"): return .double(Double(n))
        case (.integer(let n), _): return .integer(n)
        case (.real(let n), _): return .double(n)
        case (.text(let text), _): return .string(text)
        case (.blob(let data), _): return .data(data)
        }
    }

    /// The attribute types a migration converts between, by name.
    private static let convertibleTypes: [String: AttributeType] = Dictionary(
        uniqueKeysWithValues: [AttributeType.integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean].map { ($0.name, $0) })

    private static func options(_ value: SQLValue) -> StoreComparison.Options {
        guard case .integer(let raw) = value else { return [] }
        return StoreComparison.Options(rawValue: Int(raw))
    }

    /// A Swift closure behind a C function pointer: SQLite keeps the box in the function's user
    /// data and releases it when the function is replaced or the connection closes.
    private final class Body {
        let call: ([SQLValue]) throws -> SQLValue
        init(_ call: @escaping ([SQLValue]) throws -> SQLValue) { self.call = call }
    }

    private static func create(
        _ name: String, arity: Int32, deterministic: Bool = true, on connection: SQLiteConnection,
        _ body: @escaping ([SQLValue]) throws -> SQLValue
    ) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        sqlite3_create_function_v2(
            connection.handle, name, arity, flags, box,
            { context, count, values in
                guard let context, let user = sqlite3_user_data(context) else { return }
                let body = Unmanaged<Body>.fromOpaque(user).takeUnretainedValue()
                var arguments: [SQLValue] = []
                arguments.reserveCapacity(Int(count))
                for index in 0..<Int(count) { arguments.append(SQLiteFunctions.value(values?[index])) }
                do {
                    SQLiteFunctions.result(try body.call(arguments), in: context)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            },
            nil, nil,
            { user in if let user { Unmanaged<Body>.fromOpaque(user).release() } }
        )
    }

    /// A string order behind a C collation callback, boxed like ``Body``.
    private final class Order {
        let compare: (String, String) -> ComparisonResult
        init(_ compare: @escaping (String, String) -> ComparisonResult) { self.compare = compare }
    }

    private static func collate(_ name: String, on connection: SQLiteConnection, _ compare: @escaping (String, String) -> ComparisonResult) {
        let box = Unmanaged.passRetained(Order(compare)).toOpaque()
        sqlite3_create_collation_v2(
            connection.handle, name, SQLITE_UTF8, box,
            { user, leftCount, left, rightCount, right in
                guard let user else { return 0 }
                let order = Unmanaged<Order>.fromOpaque(user).takeUnretainedValue()
                func text(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
                    guard let bytes, count > 0 else { return "" }
                    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
                }
                return Int32(order.compare(text(left, leftCount), text(right, rightCount)).rawValue)
            },
            { user in if let user { Unmanaged<Order>.fromOpaque(user).release() } }
        )
    }

    private static func value(_ value: OpaquePointer?) -> SQLValue {
        guard let value else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return .null }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private static func result(_ value: SQLValue, in context: OpaquePointer) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let number): sqlite3_result_int64(context, number)
        case .real(let number): sqlite3_result_double(context, number)
        case .text(let text): sqlite3_result_text(context, text, -1, stowage_sqlite_transient())
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                sqlite3_result_blob(context, bytes.baseAddress, Int32(bytes.count), stowage_sqlite_transient())
            }
        }
    }
}
