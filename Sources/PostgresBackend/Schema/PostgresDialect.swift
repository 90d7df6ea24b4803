#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// How PostgreSQL spells what the shared SQL compiler needs: `$1` parameters, `IS [NOT] DISTINCT
/// FROM`, `strpos`/`right`, `BIGINT` and `DOUBLE PRECISION`, `LIMIT ALL`, `NULLS FIRST`, and the store's own
/// functions and collations (``PostgresFunctions``, created in the store's schema). Values are kept
/// in Core Data's storage classes, as in SQLite, except decimals, which are `NUMERIC`.
///
/// For example, `title BEGINSWITH[c] 'ada'` compiles to
///
/// ```
/// strpos(stowage_fold(t0.ZTITLE, 1), $1) = 1        bindings ['ada']
/// ```
struct PostgresDialect: SQLDialect {
    var foldFunction: String { "stowage_fold" }
    var likeFunction: String { "stowage_like" }
    var matchesFunction: String { "stowage_matches" }
    var lowercaseFunction: String { "stowage_lowercase" }
    var uppercaseFunction: String { "stowage_uppercase" }
    var castFunction: String { "stowage_cast" }
    var selectorFunction: String { "stowage_function" }
    var caseInsensitiveCollation: String { "stowage_case_insensitive" }
    var localizedCollation: String { "stowage_localized" }
    var localizedCaseInsensitiveCollation: String { "stowage_case_insensitive" }

    var parameterPrefix: String { "$" }
    func isSame(_ a: String, _ b: String, negated: Bool) -> String { "\(a) IS \(negated ? "" : "NOT ")DISTINCT FROM \(b)" }
    func isText(_ sql: String) -> String { "pg_typeof(\(sql)) = 'text'::regtype" }
    func position(of needle: String, in haystack: String) -> String { "strpos(\(haystack), \(needle))" }
    func suffix(of text: String, count: Int) -> String { "right(\(text), \(count))" }
    var integerType: String { "BIGINT" }
    var realType: String { "DOUBLE PRECISION" }
    var unlimited: String? { "ALL" }
    var hasRTreeTables: Bool { false }
    var infinity: String { "'Infinity'::DOUBLE PRECISION" }
    func integerRemainder(_ a: String, _ b: String) -> String { "(\(a) % NULLIF(\(b), 0))" }
    func realRemainder(_ a: String, _ b: String) -> String {
        "(CAST(\(a) AS DOUBLE PRECISION) - CAST(\(b) AS DOUBLE PRECISION) * trunc(CAST(\(a) AS DOUBLE PRECISION) / NULLIF(CAST(\(b) AS DOUBLE PRECISION), 0)))"
    }
    func shift(_ a: String, left: Bool, by b: String) -> String { "\(a) \(left ? "<<" : ">>") CAST(\(b) AS INTEGER)" }
    var randomInteger: String { "CAST(floor(random() * 9007199254740992) AS BIGINT)" }
    var randomFraction: String { "random()" }
    /// PostgreSQL puts NULL last ascending; SQLite and Core Data put it first.
    func nullOrdering(ascending: Bool) -> String { ascending ? " NULLS FIRST" : " NULLS LAST" }

    /// Decimals are bound as text, which a `NUMERIC` column needs cast.
    func parameter(_ number: Int, declaredType: String?) -> String { "$\(number)" + (declaredType == "DECIMAL" ? "::NUMERIC" : "") }
    /// Keys bound as one array literal (`{1,2,3}`), so any number of them takes one parameter.
    func keyList(_ keys: [Int64]) -> SQLValue { .text("{" + keys.map(String.init).joined(separator: ",") + "}") }
    func isAmongKeys(_ parameter: String) -> String { "= ANY(\(parameter)::BIGINT[])" }
    /// `int8send`/`int4send` write network (big-endian) order; a NULL entity number counts as 0,
    /// an entity the model does not know (as a NULL `Z_ENT` reads in the row-by-row list).
    func packedKeys(_ key: String, entity: String) -> String? {
        "string_agg(int8send(\(key)) || int4send(COALESCE(\(entity), 0)::INTEGER), ''::BYTEA ORDER BY \(key))"
    }
    func keyPositions(_ parameter: String, alias: String) -> String {
        "unnest(\(parameter)::BIGINT[]) WITH ORDINALITY AS \(alias)(key, position)"
    }
    /// Values of one kind bound as one array literal (`{"a","b"}`, `{1,2}`), tested by
    /// `IN (SELECT unnest(…))`: the server hashes the list or walks an index by it. (`= ANY($1::TEXT[])`
    /// compared each row with every element in turn — the cast of a parameter is no constant the
    /// planner can hash —: 8 s for 10,000 values against 10,000 rows, 86 s for 70,000.)
    func valueList(_ values: [SQLValue]) -> (value: SQLValue, isAmong: (_ parameter: String) -> String)? {
        guard let (literal, type) = Self.arrayLiteral(values) else { return nil }
        return (.text(literal), { "IN (SELECT unnest(\($0)::\(type)[]))" })
    }
    var insertIgnoringDuplicates: (prefix: String, suffix: String) { ("INSERT", " ON CONFLICT DO NOTHING") }
    var lockingRows: String { " FOR UPDATE" }
    var makesCoreDataTwins: Bool { false }
    func jsonObject(_ members: [String]) -> String { "CAST(json_build_object(\(members.joined(separator: ", "))) AS TEXT)" }
    func hexText(_ sql: String) -> String { "upper(encode(\(sql), 'hex'))" }
    func temporaryTable(_ name: String, columns: String, primaryKey: String) -> (name: String, create: String) {
        ("pg_temp.\(name)", "CREATE TEMP TABLE IF NOT EXISTS \(name) (\(columns), PRIMARY KEY (\(primaryKey)))")
    }

    func encode(_ value: StoreValue) -> SQLValue { Self.encode(value) }
    func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue { Self.decode(value, as: type) }
    func inlineBinary(_ data: Data) -> SQLValue { .blob(data) }

    /// The values as a PostgreSQL array literal with its element type, when they are all of one
    /// kind: integers (`BIGINT`), finite doubles (`DOUBLE PRECISION`) or text (`TEXT`, each
    /// element quoted, `"` and `\` escaped). `nil` for an empty list, NULLs, blobs, infinities,
    /// or mixed kinds (an integer beside a double would be compared as a double).
    ///
    /// For example, `[.text("a"), .text("say \"hi\"")]` gives `{"a","say \"hi\""}` and `TEXT`.
    static func arrayLiteral(_ values: [SQLValue]) -> (literal: String, type: String)? {
        guard let first = values.first else { return nil }
        var literal = "{"
        literal.reserveCapacity(values.count * 12 + 2)
        let type: String
        switch first {
        case .integer: type = "BIGINT"
        case .real: type = "DOUBLE PRECISION"
        case .text: type = "TEXT"
        case .null, .blob: return nil
        }
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            switch (first, value) {
            case (.integer, .integer(let number)):
                literal += String(number)
            case (.real, .real(let number)):
                guard number.isFinite else { return nil }
                literal += String(number)
            case (.text, .text(let text)):
                literal += "\""
                if !text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                    literal += text
                } else {
                    for character in text.unicodeScalars {
                        if character == "\"" || character == "\\" { literal += "\\" }
                        literal.unicodeScalars.append(character)
                    }
                }
                literal += "\""
            default:
                return nil
            }
        }
        return (literal + "}", type)
    }

    /// Decimals go to the server as their digits, which the `NUMERIC` column parses exactly.
    static func encode(_ value: StoreValue) -> SQLValue {
        SQLValueCoder.encode(value) { .text($0.description) }
    }

    static func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue {
        SQLValueCoder.decode(value, as: type)
    }

    /// The column type PostgreSQL gets for the type Core Data declares (`INTEGER`, `FLOAT`,
    /// `VARCHAR`, `TIMESTAMP`, `DECIMAL`, `BLOB`): every integer is 64-bit, dates stay seconds
    /// since 2001 (so they compare as numbers with bound values, as in SQLite).
    func columnType(_ declared: String) -> String {
        switch declared {
        case "INTEGER": "BIGINT"
        case "FLOAT", "TIMESTAMP", "REAL": "DOUBLE PRECISION"
        case "TEXT": "TEXT"
        case _ where declared.hasPrefix("VARCHAR"): "TEXT"
        case "DECIMAL": "NUMERIC"
        default: "BYTEA"
        }
    }

    /// In the NULL order the store's sorts ask for (NULL first ascending, last descending), so
    /// that an ORDER BY in either direction can walk the index (backwards for the other one).
    func indexColumn(_ name: String, ascending: Bool) -> String { "\(name) \(ascending ? "ASC" : "DESC")" + nullOrdering(ascending: ascending) }
}

/// PostgreSQL's dialect, for code outside this module that checks the shared store logic's SQL (the
/// recording driver of `StoreSQLTests`).
package enum PostgresDialects {
    package static var dialect: any SQLDialect { PostgresDialect() }
}
#endif
