import StoreCore

/// What a save's writer needs of one entity's table, worked out once per entity and save rather
/// than looked up by name for every row: the table, the columns whose values may live in external
/// files, the `DELETE`s (of one row, of a run of keys) and their clean-up of to-many
/// relationships, and the `UPDATE` of the last set of changed properties.
///
/// For example (inside ``SQLChangeWriter``):
///
/// ```swift
/// let plan = try plan(for: snapshot)        // the same object for every row of the entity
/// try connection.run(plan.deleteSQL, [.integer(key), .integer(snapshot.version)])
/// ```
final class SQLTableWritePlan {
    /// A statement that clears what a deleted row's to-many relationship held, bound to its key.
    enum ToManyCleanup {
        /// The join table's rows of the owner.
        case joinTable(sql: String)
        /// The members' foreign keys, for a relationship without an inverse.
        case foreignKey(sql: String)
    }

    /// Where one column's value is in a snapshot, without the column's names: the per-row loops
    /// read these (copying a ``Column`` costs a retain and a release of each of its strings).
    struct ValueColumn {
        /// The property's index in the entity (where snapshots hold the value).
        let propertyIndex: Int
        /// The column's position in the table's ``EntityTable/columns``.
        let position: Int
        /// Whether the attribute allows external storage (its value may be a file's).
        let allowsExternalStorage: Bool
    }

    let entity: EntityDescription
    let table: EntityTable
    /// The table's number (`Z_ENT`).
    let tableNumber: Int64
    /// The table's columns, in order, as the per-row loops read them.
    let valueColumns: [ValueColumn]
    /// The columns of attributes that allow external storage.
    let externalColumns: [Column]
    /// `DELETE FROM <table> WHERE Z_PK = ? AND Z_OPT = ?`.
    let deleteSQL: String
    /// `DELETE FROM <table> WHERE Z_OPT = ? AND Z_PK BETWEEN ? AND ?`: a run of consecutive
    /// keys read at one version.
    let rangeDeleteSQL: String
    let toManyCleanups: [ToManyCleanup]
    /// The properties of the last `UPDATE` made for this table, and its text.
    var lastUpdate: (changed: PropertyMask, sql: String)?

    init(entity: EntityDescription, entityName: String, table: EntityTable, model: ManagedObjectModel, dialect: any SQLDialect) {
        self.entity = entity
        self.table = table
        tableNumber = table.number
        valueColumns = table.columns.enumerated().map { position, column in
            if case .attribute(_, true) = column.kind {
                return ValueColumn(propertyIndex: column.propertyIndex, position: position, allowsExternalStorage: true)
            }
            return ValueColumn(propertyIndex: column.propertyIndex, position: position, allowsExternalStorage: false)
        }
        externalColumns = table.columns.filter { column in
            if case .attribute(_, true) = column.kind { return true }
            return false
        }
        let key = dialect.parameter(1, declaredType: nil)
        deleteSQL = "DELETE FROM \(table.table) WHERE Z_PK = \(key) AND Z_OPT = \(dialect.parameter(2, declaredType: nil))"
        rangeDeleteSQL = "DELETE FROM \(table.table) WHERE Z_OPT = \(key) AND Z_PK BETWEEN \(dialect.parameter(2, declaredType: nil)) AND \(dialect.parameter(3, declaredType: nil))"
        let relationships = model.entitiesByName[entityName]?.relationshipsByName ?? [:]
        // In the order of the table's to-many relationships, as the per-row loop took them.
        toManyCleanups = table.toMany.compactMap { name, storage in
            switch storage {
            case .joinTable(_, let joinTable, let ownerColumn, _, _):
                return .joinTable(sql: "DELETE FROM \(joinTable) WHERE \(ownerColumn) = \(key)")
            case .foreignKey(_, let destinationTable, let column, _):
                guard relationships[name]?.inverseRelationship == nil else { return nil }
                return .foreignKey(sql: "UPDATE \(destinationTable) SET \(column) = NULL WHERE \(column) = \(key)")
            }
        }
    }
}
