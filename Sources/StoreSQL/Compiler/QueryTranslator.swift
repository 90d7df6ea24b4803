import Foundation
import StoreCore

/// Translates one statement's predicates, expressions and sorts to SQL: holds the bound values
/// (numbered `?1`, `?2`… so fragments can be built in any order and a value used twice is bound
/// once), hands out table aliases, and knows the schema.
///
/// ``SQLCompiler`` makes one per statement. For example, for `magnitude > 5 AND region.name ==
/// 'Alaska'` on `Quake` it produces
///
/// ```
/// FROM ZQUAKE t0 LEFT JOIN ZREGION t1 ON t1.Z_PK = t0.ZREGION
/// WHERE t0.ZMAGNITUDE > ?1 AND t1.ZNAME = ?2        bindings [5, 'Alaska']
/// ```
///
/// With ``inlinesConstants`` (partial-index predicates) constants are written as SQL literals,
/// columns are unqualified, and anything needing a join, a subquery or a Stowage SQL function
/// is refused.
package final class QueryTranslator {
    package let schema: SQLSchema
    package let model: ManagedObjectModel
    package let inlinesConstants: Bool
    private(set) var bindings: [SQLValue] = []
    private var bindingNumbers: [SQLValue: Int] = [:]
    private var aliasCount = 0

    package init(schema: SQLSchema, model: ManagedObjectModel, inlinesConstants: Bool = false) {
        self.schema = schema
        self.model = model
        self.inlinesConstants = inlinesConstants
    }

    // MARK: Values and names

    /// A placeholder bound to `value` (or, when inlining, the value as a literal).
    package func bind(_ value: SQLValue) -> String {
        if inlinesConstants { return Self.literal(value) }
        if case .null = value { return "NULL" }
        if let number = bindingNumbers[value] { return "?\(number)" }
        bindings.append(value)
        bindingNumbers[value] = bindings.count
        return "?\(bindings.count)"
    }

    /// The statement with its parameters renumbered densely in order of first use, and only
    /// the bindings it uses (compiling binds some values that simplification then drops, and
    /// SQLite refuses values for parameters a statement does not have).
    ///
    /// One pass over the statement's bytes (each `?` is followed by its digits only).
    package func finish(_ sql: String) -> CompiledQuery {
        var renumbered: [Int: Int] = [:]
        var used: [SQLValue] = []
        var result = ""
        result.reserveCapacity(sql.utf8.count)
        let bytes = Array(sql.utf8)
        var copied = 0, position = 0
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "?") else {
                position += 1
                continue
            }
            var end = position + 1, number = 0
            while end < bytes.count, end - position <= 9, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
                number = number * 10 + Int(bytes[end] - UInt8(ascii: "0"))
                end += 1
            }
            if end > position + 1, number >= 1, number <= bindings.count {
                let new = renumbered[number] ?? {
                    used.append(bindings[number - 1])
                    renumbered[number] = used.count
                    return used.count
                }()
                result += String(decoding: bytes[copied..<position], as: UTF8.self)
                result += schema.dialect.parameterPrefix + String(new)
                copied = end
            }
            position = end
        }
        result += String(decoding: bytes[copied...], as: UTF8.self)
        return CompiledQuery(sql: result, bindings: used)
    }

    /// A fresh table alias: `t1`, `t2`… (`t0` is the fetched entity's table).
    package func newAlias(_ prefix: String = "t") -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }

    /// `alias.column`, or the bare column for the unaliased table of a partial index.
    package func qualified(_ alias: String, _ column: String) -> String {
        alias.isEmpty ? column : "\(alias).\(column)"
    }

    /// A constant, bound with the storage class its column would have: dates as seconds since
    /// 2001, booleans as 0/1, UUIDs as 16-byte blobs, object IDs as their primary key; decimals
    /// as REAL, so they compare as numbers with any expression.
    package func constant(_ value: StoreValue) -> SQLScalar {
        let encoded = encodedConstant(value)
        if case .null = encoded { return SQLScalar(sql: "NULL", kind: value.isNull ? .null : SQLKind(value), nullable: true, constant: value) }
        return SQLScalar(sql: bind(encoded), kind: SQLKind(value), nullable: false, constant: value)
    }

    /// A constant's SQL value (see ``constant(_:)``).
    package func encodedConstant(_ value: StoreValue) -> SQLValue {
        Self.encodedConstant(value, dialect: schema.dialect)
    }

    /// A constant's SQL value in `dialect` (see ``constant(_:)``).
    package static func encodedConstant(_ value: StoreValue, dialect: any SQLDialect) -> SQLValue {
        if case .decimal(let number) = value { return .real(number.nearestDouble) }
        return dialect.encode(value)
    }

    /// Refuses what a partial-index predicate cannot contain.
    package func requireBindable(_ construct: @autoclosure () -> String) throws {
        if inlinesConstants {
            throw FetchError(.unsupported, "\(construct()) cannot be used in a partial index predicate")
        }
    }

    /// A SQL function of Stowage's (`stowage_fold`…): registered on every connection the store
    /// opens, but unknown to other programs, so refused in index definitions.
    package func stowageFunction(_ name: String, _ arguments: [String]) throws -> String {
        try requireBindable("the SQL function \(name) (for [c], [d], LIKE, MATCHES, CAST or case mapping)")
        return "\(name)(\(arguments.joined(separator: ", ")))"
    }

    /// A value as SQL literal text: strings quoted with `''` doubled, blobs as `X'…'`.
    package static func literal(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let number): return number == .min ? "(-9223372036854775807 - 1)" : String(number)
        case .real(let number):
            if number.isNaN { return "NULL" }
            if number.isInfinite { return number > 0 ? "9e999" : "-9e999" }
            return String(number)
        case .text(let text):
            if text.utf8.contains(0) { return "CAST(\(hexLiteral(Data(text.utf8))) AS TEXT)" }
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return hexLiteral(data)
        }
    }

    private static func hexLiteral(_ data: Data) -> String {
        let digits = Array("0123456789ABCDEF")
        var text = "X'"
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text + "'"
    }

    // MARK: Objects

    /// The alias of an object's row, joining its table (once per foreign key and level) if needed.
    package func alias(of object: ObjectReference) throws -> String {
        if let alias = object.alias { return alias }
        if let alias = object.level.alias(joinedOn: object.key) { return alias }
        try requireBindable("a key path through the to-one relationship to \(object.entity.name)")
        let table = try schema.table(for: object.entity.name)
        let alias = newAlias()
        object.level.append("LEFT JOIN \(table.table) \(alias) ON \(alias).Z_PK = \(object.key)", key: object.key, alias: alias)
        return alias
    }

    /// The fetched entity's own row: `t0` (no alias in a partial index).
    package func root(_ entity: EntityDescription, table: EntityTable) -> (level: QueryLevel, scope: QueryScope) {
        let alias = inlinesConstants ? "" : "t0"
        let level = QueryLevel(inlinesConstants ? table.table : "\(table.table) t0")
        let object = ObjectReference(key: qualified(alias, "Z_PK"), alias: alias, entity: entity, level: level, nullable: false)
        return (level, QueryScope(subject: .object(object)))
    }
}

/// What `SELF` and `$variables` are while compiling part of a predicate: the fetched object at
/// the top, a collection's element inside `SUBQUERY`.
package struct QueryScope {
    package var subject: QueryOperand
    package var variables: [String: QueryOperand] = [:]
}
