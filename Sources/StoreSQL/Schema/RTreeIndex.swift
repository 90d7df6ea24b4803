import StoreCore

/// An R-tree fetch index of one entity: `Z_<Entity>_<index>`, with `<COLUMN>_MIN`/`_MAX`
/// bounds per indexed property (points: min = max). The SQL compiler uses it for
/// `indexed:by:` comparisons.
package struct RTreeIndex: Sendable {
    package let entity: EntityTable
    package let name: String
    package let properties: [String]
    package let columns: [String]

    package var tableName: String { "Z_\(entity.name)_\(name)" }

    package init(entity: EntityTable, index: FetchIndexDescription, columnName: (String) throws -> String) throws {
        self.entity = entity
        self.name = index.name
        self.properties = index.elements.map(\.property)
        self.columns = try index.elements.map { try columnName($0.property) }
    }
}
