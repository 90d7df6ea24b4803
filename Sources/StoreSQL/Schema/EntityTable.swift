import StoreCore

/// Where one entity's objects live: its entity number, the table of its root entity, and the
/// column (or join table) of every stored property — Core Data's layout.
///
/// Sub-entities share their root entity's table; `Z_ENT` tells the rows apart, and
/// ``entityNumbers`` lists the numbers a fetch of this entity (with sub-entities) accepts.
///
/// For example, `Post` (entity 3) with a `title` attribute and a `blog` to-one:
///
/// ```
/// table ZPOST, Z_ENT 3, columns: title → ZTITLE, blog → ZBLOG (foreign key to ZBLOG.Z_PK)
/// ```
package struct EntityTable: Sendable {
    package let name: String
    /// `Z_ENT`: the store's number for the entity (a new store's: Core Data's,
    /// ``SQLSchema/coreDataEntityNumbers(of:)``).
    package let number: Int64
    /// The super-entity's number, 0 for a root entity (`Z_PRIMARYKEY.Z_SUPER`).
    package let superNumber: Int64
    /// The root entity's name; its table holds this entity's rows.
    package let rootName: String
    /// `Z` + the root entity's name, upper-cased.
    package let table: String
    /// This entity's number and its descendants'.
    package let entityNumbers: [Int64]
    /// Attributes and to-one relationships, inherited ones included, in a fixed order: the
    /// columns a snapshot is read from.
    package let columns: [Column]
    package let columnsByProperty: [String: Int]
    /// To-many relationships, inherited ones included.
    package let toMany: [String: ToManyStorage]

    /// Whether a fetch of this entity must filter on `Z_ENT` (it shares its table with others).
    package let sharesTable: Bool

    /// `INSERT INTO <table> (Z_PK, Z_ENT, Z_OPT, <columns>) VALUES (?, ?, 1, ?…)`, built once.
    package var insertSQL: String {
        "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT\(columns.map { ", " + $0.name }.joined())) VALUES (?, ?, 1\(String(repeating: ", ?", count: columns.count)))"
    }

    package func column(for property: String) -> Column? {
        columnsByProperty[property].map { columns[$0] }
    }
}

/// One stored attribute or to-one relationship of an entity.
package struct Column: Sendable {
    package enum Kind: Sendable {
        case attribute(AttributeType, externalStorage: Bool)
        /// A foreign key: the destination's `Z_PK`. `orderColumn` is the `Z_FOK_` column when
        /// the inverse is an ordered to-many.
        case toOne(destination: String, orderColumn: String?)
    }

    package let property: String
    /// The property's index in its entity's ``EntityDescription/properties`` (where snapshots hold its value).
    package let propertyIndex: Int
    /// `Z` + the property name, upper-cased (a numeric suffix when sub-entities clash).
    package let name: String
    package let kind: Kind

    /// The SQL type Core Data declares for the column.
    package var declaredType: String {
        switch kind {
        case .toOne: "INTEGER"
        case .attribute(let type, _):
            switch type {
            case .integer16, .integer32, .integer64, .boolean: "INTEGER"
            case .decimal: "DECIMAL"
            case .double, .float: "FLOAT"
            case .string, .uri: "VARCHAR"
            case .date: "TIMESTAMP"
            case .binaryData, .uuid, .transformable, .objectID, .undefined, .composite: "BLOB"
            }
        }
    }
}

/// Where a to-many relationship's members are found.
package enum ToManyStorage: Sendable {
    /// One-to-many: the destination table's foreign-key column points back at the owner, and
    /// `orderColumn` (`Z_FOK_<INVERSE>`) keeps the order of an ordered relationship.
    case foreignKey(destination: String, table: String, column: String, orderColumn: String?)
    /// Many-to-many: a join table with the owner's key in `ownerColumn` and the member's key
    /// in `memberColumn`; `orderColumn` keeps the members' order for an ordered relationship.
    case joinTable(destination: String, table: String, ownerColumn: String, memberColumn: String, orderColumn: String?)

    package var destination: String {
        switch self {
        case .foreignKey(let destination, _, _, _), .joinTable(let destination, _, _, _, _): destination
        }
    }
}

/// A many-to-many join table, created once for the pair of relationships it serves.
package struct JoinTable: Sendable, Hashable {
    package let name: String
    /// The keys of objects that own the relationship the table is named after.
    package let ownerColumn: String
    /// The keys of their members.
    package let memberColumn: String
    /// `Z_FOK_` columns for the sides that are ordered.
    package let orderColumns: [String]
}

extension EntityTable {
    /// The column lists of the uniqueness constraints the rows of `entityName` meet (its own and
    /// its ancestors'), for upserts' conflict targets.
    package func uniquenessConstraintColumns(entityName: String, model: ManagedObjectModel) -> [[String]] {
        var result: [[String]] = []
        var current = model.entitiesByName[entityName]
        while let owner = current {
            for constraint in owner.uniquenessConstraints {
                let columns = constraint.compactMap { column(for: $0)?.name }
                if columns.count == constraint.count { result.append(columns) }
            }
            current = owner.superentity
        }
        return result
    }
}
