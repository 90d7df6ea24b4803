import Foundation
import StoreCore
import StoreSQL

/// SQLite's dialect of the shared SQL compiler: the `stowage_…` functions and `STOWAGE_…`
/// collations ``SQLFunctions`` registers on every connection, values stored as
/// ``SQLiteValueCoder`` writes them, and external-storage markers.
///
/// For example:
///
/// ```swift
/// let schema = SQLSchema(model: model)    // SQLite's dialect
/// ```
struct SQLiteDialect: SQLDialect {
    var foldFunction: String { SQLFunctions.foldName }
    var likeFunction: String { SQLFunctions.likeName }
    var matchesFunction: String { SQLFunctions.matchesName }
    var lowercaseFunction: String { SQLFunctions.lowercaseName }
    var uppercaseFunction: String { SQLFunctions.uppercaseName }
    var castFunction: String { SQLFunctions.castName }
    var selectorFunction: String { SQLFunctions.functionName }
    var caseInsensitiveCollation: String { SQLFunctions.caseInsensitiveCollation }
    var localizedCollation: String { SQLFunctions.localizedCollation }
    var localizedCaseInsensitiveCollation: String { SQLFunctions.localizedCaseInsensitiveCollation }

    func encode(_ value: StoreValue) -> SQLValue { SQLiteValueCoder.encode(value) }
    func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue { SQLiteValueCoder.decode(value, as: type) }
    func inlineBinary(_ data: Data) -> SQLValue { .blob(Data([ExternalBinaryStorage.inlineMarker]) + data) }
}

extension SQLSchema {
    /// The layout of `model` in a SQLite store (see ``SQLSchema/init(model:entityNumbers:dialect:)``).
    init(model: ManagedObjectModel, entityNumbers: [String: Int64]? = nil) {
        self.init(model: model, entityNumbers: entityNumbers, dialect: SQLiteDialect())
    }
}

extension SQLiteStatement: SQLRow {
    package func storeValue(at index: Int, as type: AttributeType) -> StoreValue {
        SQLiteValueCoder.read(self, at: index, as: type)
    }
}
