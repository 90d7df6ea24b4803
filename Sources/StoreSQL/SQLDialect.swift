import Foundation
import StoreCore

/// What one SQL store's database does its own way, for the compiler and schema mapping it
/// shares with the others: the functions and collations the query language needs, and how
/// values are written to and read from its columns. SQLite's is `SQLiteDialect`.
///
/// For example:
///
/// ```swift
/// let schema = SQLSchema(model: model, dialect: SQLiteDialect())
/// let compiler = SQLCompiler(schema: schema, model: model)
/// ```
package protocol SQLDialect: Sendable {
    /// `fold(text, flags)`: text folded for `[c]`/`[d]` comparisons (flags: 1 case, 2 diacritics).
    var foldFunction: String { get }
    /// `like(text, pattern, flags)`: Core Data's `LIKE` with `*` and `?`.
    var likeFunction: String { get }
    /// `matches(text, pattern, flags)`: `MATCHES`, a whole-string ICU regular expression.
    var matchesFunction: String { get }
    /// `lowercase:`/`uppercase:` as Foundation does them.
    var lowercaseFunction: String { get }
    var uppercaseFunction: String { get }
    /// `CAST(value, 'Type')` as the in-memory evaluator does it.
    var castFunction: String { get }
    /// `FUNCTION(receiver, 'selector', …)` of strings, numbers and dates.
    var selectorFunction: String { get }
    /// The collations of sort descriptors' comparisons.
    var caseInsensitiveCollation: String { get }
    var localizedCollation: String { get }
    var localizedCaseInsensitiveCollation: String { get }

    /// A store value as the database holds it, for binding.
    func encode(_ value: StoreValue) -> SQLValue
    /// A column value read back as an attribute of `type`.
    func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue
    /// Binary data kept in the row of an attribute that allows external storage (batch updates
    /// write values in the row).
    func inlineBinary(_ data: Data) -> SQLValue

    // The SQL spelling of what the databases write differently. The defaults are SQLite's.

    /// What precedes a parameter's number: `?` (`?1`) or `$` (`$1`).
    var parameterPrefix: String { get }
    /// `a IS b` / `a IS NOT b`: equality and inequality that treat NULL as a value.
    func isSame(_ a: String, _ b: String, negated: Bool) -> String
    /// Whether an expression of unknown kind holds text.
    func isText(_ sql: String) -> String
    /// The 1-based position of `needle` in `haystack`, 0 when absent.
    func position(of needle: String, in haystack: String) -> String
    /// The last `count` characters of `text`.
    func suffix(of text: String, count: Int) -> String
    /// The types `CAST` names for 64-bit integers and doubles.
    var integerType: String { get }
    var realType: String { get }
    /// A long list of constant values bound as one value, and what follows a subject to test it
    /// against the list bound at a parameter: SQLite a JSON array and `IN (SELECT value FROM
    /// json_each(?1))`, PostgreSQL an array literal and `IN (SELECT unnest($1::TEXT[]))`. `nil` where the values
    /// have no such form (blobs, infinities, mixed kinds on PostgreSQL): they are then bound one by one.
    func valueList(_ values: [SQLValue]) -> (value: SQLValue, isAmong: (_ parameter: String) -> String)?
    /// A long list of constant values bound as one value, and the table of one column `value`
    /// it reads as, to join rows to — SQLite a JSON array and `json_each(?1)` — where a join
    /// looks each value up in the column's index without first copying the list into a sorted
    /// temporary table (what `IN (SELECT value FROM json_each(?1))` does, the list's greater
    /// cost for a constraint check's 100,000 values). A value listed twice joins its rows twice.
    /// `nil` where the dialect has none (the default; PostgreSQL's `IN` is hashed), or the values
    /// have no such form: the list is then tested with ``valueList(_:)``.
    func valueTable(_ values: [SQLValue]) -> (value: SQLValue, table: (_ parameter: String) -> String)?
    /// What `LIMIT` says for "no limit" when only an offset is given (nil: bind -1).
    var unlimited: String? { get }
    /// Whether R-tree fetch indexes are virtual tables the compiler may join (SQLite); without
    /// them, predicates over R-tree-indexed properties are compiled as plain comparisons.
    var hasRTreeTables: Bool { get }
    /// Positive and negative infinity as double literals.
    var infinity: String { get }
    /// `a % b` of integers, NULL when `b` is 0; `mod(a, b)` of doubles.
    func integerRemainder(_ a: String, _ b: String) -> String
    func realRemainder(_ a: String, _ b: String) -> String
    /// `a << b` / `a >> b` for a count within 0..<64.
    func shift(_ a: String, left: Bool, by b: String) -> String
    /// A random 64-bit (or wide non-negative) integer, and a random double in 0..<1.
    var randomInteger: String { get }
    var randomFraction: String { get }
    /// What follows an ORDER BY term so that NULL comes first ascending and last descending, as
    /// SQLite and Core Data order it (`""` where that is the database's own order).
    func nullOrdering(ascending: Bool) -> String

    // Statements the shared store logic (``SQLStore``) writes.

    /// Parameter `number` (from 1) as SQL text, cast where a column of `declaredType` needs it.
    func parameter(_ number: Int, declaredType: String?) -> String
    /// Any number of keys bound as one value (``isAmongKeys(_:)``, ``keyPositions(_:alias:)``).
    func keyList(_ keys: [Int64]) -> SQLValue
    /// What follows a column to test it against the key list bound at `parameter`.
    func isAmongKeys(_ parameter: String) -> String
    /// An aggregate packing the rows' `key` and `entity` columns into one blob, in key order:
    /// per row the key (8 bytes) then the entity number (4 bytes), both big-endian
    /// (``SQLStore/objectIDList(_:)`` reads an unsorted ID list so, thousands of rows a value);
    /// `nil` where a row costs the driver too little to be worth it (SQLite).
    func packedKeys(_ key: String, entity: String) -> String?
    /// A relation `alias(key, position)` of the key list bound at `parameter`, positions from 1.
    func keyPositions(_ parameter: String, alias: String) -> String
    /// `INSERT` that skips rows whose key is already there: the text before `INTO` and after the rows.
    var insertIgnoringDuplicates: (prefix: String, suffix: String) { get }
    /// A JSON object, as text, of alternating key and value expressions.
    func jsonObject(_ members: [String]) -> String
    /// Binary data as upper-case hexadecimal text.
    func hexText(_ sql: String) -> String
    /// Whether new stores are laid out exactly as Core Data lays them out, redundant indexes
    /// included (SQLite: Core Data opens the file); otherwise only what queries use is made.
    var makesCoreDataTwins: Bool { get }
    /// What follows a `SELECT` to lock the rows it reads until the transaction ends (`""` where
    /// a write transaction already excludes other writers).
    var lockingRows: String { get }
    /// The column type of a column Core Data declares as `declared` (`INTEGER`, `FLOAT`, `VARCHAR`,
    /// `TIMESTAMP`, `DECIMAL`, `BLOB`).
    func columnType(_ declared: String) -> String
    /// A column of an index, in its order (and collation, and NULL order).
    func indexColumn(_ name: String, ascending: Bool) -> String
    /// The statements of an R-tree fetch index, or `nil` where the database has none (a B-tree
    /// index over the columns is made instead; queries give the same answers through it).
    func rTreeStatements(_ index: RTreeIndex) -> [String]?
    /// A table that lives as long as the connection, seen by no other: its name, and the statement
    /// creating it (if it does not exist) with `columns` and `primaryKey`.
    func temporaryTable(_ name: String, columns: String, primaryKey: String) -> (name: String, create: String)
}

extension SQLDialect {
    package var parameterPrefix: String { "?" }
    package func packedKeys(_ key: String, entity: String) -> String? { nil }
    package func isSame(_ a: String, _ b: String, negated: Bool) -> String { "\(a) \(negated ? "IS NOT" : "IS") \(b)" }
    package func isText(_ sql: String) -> String { "typeof(\(sql)) = 'text'" }
    package func position(of needle: String, in haystack: String) -> String { "instr(\(haystack), \(needle))" }
    package func suffix(of text: String, count: Int) -> String { "substr(\(text), -\(count))" }
    package var integerType: String { "INTEGER" }
    package var realType: String { "REAL" }
    package func valueList(_ values: [SQLValue]) -> (value: SQLValue, isAmong: (_ parameter: String) -> String)? {
        guard let json = QueryTranslator.jsonArray(values) else { return nil }
        return (.text(json), { "IN (SELECT value FROM json_each(\($0)))" })
    }
    package func valueTable(_ values: [SQLValue]) -> (value: SQLValue, table: (_ parameter: String) -> String)? { nil }
    package var unlimited: String? { nil }
    package var hasRTreeTables: Bool { true }
    package var infinity: String { "9e999" }
    package func integerRemainder(_ a: String, _ b: String) -> String { "(\(a) % \(b))" }
    package func realRemainder(_ a: String, _ b: String) -> String { "mod(\(a), \(b))" }
    package func shift(_ a: String, left: Bool, by b: String) -> String { "\(a) \(left ? "<<" : ">>") \(b)" }
    package var randomInteger: String { "random()" }
    package var randomFraction: String { "(random() / 18446744073709551616.0 + 0.5)" }
    package func nullOrdering(ascending: Bool) -> String { "" }
    package func parameter(_ number: Int, declaredType: String?) -> String { parameterPrefix + String(number) }
    package func keyList(_ keys: [Int64]) -> SQLValue { .text("[" + keys.map(String.init).joined(separator: ",") + "]") }
    package func isAmongKeys(_ parameter: String) -> String { "IN (SELECT value FROM json_each(\(parameter)))" }
    package func keyPositions(_ parameter: String, alias: String) -> String {
        "(SELECT json_each.value AS key, json_each.key + 1 AS position FROM json_each(\(parameter))) AS \(alias)"
    }
    package var insertIgnoringDuplicates: (prefix: String, suffix: String) { ("INSERT OR IGNORE", "") }
    package func jsonObject(_ members: [String]) -> String { "json_object(\(members.joined(separator: ", ")))" }
    package func hexText(_ sql: String) -> String { "hex(\(sql))" }
    package var makesCoreDataTwins: Bool { true }
    package var lockingRows: String { "" }
    package func columnType(_ declared: String) -> String { declared }
    package func indexColumn(_ name: String, ascending: Bool) -> String { "\(name) COLLATE BINARY \(ascending ? "ASC" : "DESC")" }
    package func rTreeStatements(_ index: RTreeIndex) -> [String]? { nil }
    package func temporaryTable(_ name: String, columns: String, primaryKey: String) -> (name: String, create: String) {
        ("temp.\(name)", "CREATE TEMP TABLE IF NOT EXISTS \(name) (\(columns), PRIMARY KEY (\(primaryKey))) WITHOUT ROWID")
    }
}
