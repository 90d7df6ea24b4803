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
}

/// A result row of a SQL store's connection, read by column index.
package protocol SQLRow {
    /// The raw value of a column.
    func value(at index: Int) -> SQLValue
    /// A column read as an attribute of `type` (a store may read its native types directly).
    func storeValue(at index: Int, as type: AttributeType) -> StoreValue
}
