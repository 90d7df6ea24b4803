import Foundation
internal import CSQLite
import StoreCore

/// The SQL functions every connection registers, so that string comparisons in SQL give the
/// same answers as the in-memory evaluator:
///
/// - `stowage_fold(text, options)`: the text with case and/or diacritics folded (`[c]`, `[d]`).
/// - `stowage_like(text, pattern, options)`: Core Data's `LIKE` (`*`, `?`, whole string).
/// - `stowage_matches(text, pattern, options)`: `MATCHES` (ICU regular expression, whole string).
/// - `REGEXP(pattern, text)`: SQLite's `text REGEXP pattern` operator, the same matching.
/// - `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue(…)`: called by the triggers of
///   Apple-written stores with derived attributes; a no-op here, so writes to them succeed.
///
/// `options` is ``StoreComparison/Options``' raw value. A bad regular expression fails the
/// statement with the same message as the in-memory evaluator.
enum SQLFunctions {
    static let foldName = "stowage_fold"
    static let likeName = "stowage_like"
    static let matchesName = "stowage_matches"

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
        create("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", arity: -1, deterministic: false, on: connection) { _ in .null }
        create("NSCoreDataDATriggerUpdatedAffectedObjectValue", arity: -1, deterministic: false, on: connection) { _ in .null }
    }

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
                for index in 0..<Int(count) { arguments.append(SQLFunctions.value(values?[index])) }
                do {
                    SQLFunctions.result(try body.call(arguments), in: context)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            },
            nil, nil,
            { user in if let user { Unmanaged<Body>.fromOpaque(user).release() } }
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
