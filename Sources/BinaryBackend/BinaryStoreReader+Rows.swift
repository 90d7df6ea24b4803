import StoreCore

/// Making the objects of one entity table, row by row: laid out by the model's entity, each
/// column written at its property index; or, for a table naming what the model does not have,
/// by name, for the engine to refuse with the same error as any such file.
extension BinaryStoreReader {
    /// Where each column of a table goes in the entity's layout: its property index. `nil` when
    /// a column names no stored attribute (or no relationship) of the entity.
    struct ColumnLayout {
        let attributeIndexes: [Int]
        let relationshipIndexes: [Int]

        init?(_ table: EntityTable, entity: EntityDescription) {
            var attributeIndexes: [Int] = []
            for column in table.attributes {
                guard let index = entity.propertyIndexes[column.name], entity.layout.kinds[index] == .attribute else { return nil }
                attributeIndexes.append(index)
            }
            var relationshipIndexes: [Int] = []
            for column in table.relationships {
                guard let index = entity.propertyIndexes[column.name], entity.layout.kinds[index] == .toOne || entity.layout.kinds[index] == .toMany else {
                    return nil
                }
                relationshipIndexes.append(index)
            }
            self.attributeIndexes = attributeIndexes
            self.relationshipIndexes = relationshipIndexes
        }
    }

    /// Appends the table's objects, laid out by `entity`.
    mutating func readRows(of entityTable: EntityTable, laidOutBy entity: EntityDescription, layout: ColumnLayout, into objects: inout [AtomicStoreObject]) throws(StoreError) {
        let attributes = entityTable.attributes
        let relationships = entityTable.relationships
        for row in 0..<entityTable.keys.count {
            var column = -1
            do throws(PropertyListError) {
                let key = try table.integer(ofObject: try table.element(row, of: entityTable.keys))
                var object = AtomicStoreObject(entity: entity, primaryKey: key)
                for position in attributes.indices {
                    column = position
                    if let value = try value(ofCell: try table.element(row, of: attributes[position].cells), type: attributes[position].type) {
                        object[layout.attributeIndexes[position]] = value
                    }
                }
                for position in relationships.indices {
                    column = attributes.count + position
                    let cell = try table.element(row, of: relationships[position].cells)
                    let index = layout.relationshipIndexes[position]
                    if try table.kind(ofObject: cell) == .integer {
                        object.setTargetKey(try table.integer(ofObject: cell), at: index)
                    } else {
                        let keys = try targets(ofCell: cell)
                        if !keys.isEmpty { object.setKeys(keys, at: index) }
                    }
                }
                objects.append(consume object)  // moved, not copied (a copy retains the entity)
            } catch {
                throw rowError(error, row: row, column: column, of: entityTable)
            }
        }
    }

    /// Appends the table's objects, held by name (`nil` cells and empty relationships left out).
    mutating func readRowsByName(of entityTable: EntityTable, into objects: inout [AtomicStoreObject]) throws(StoreError) {
        let attributes = entityTable.attributes
        let relationships = entityTable.relationships
        for row in 0..<entityTable.keys.count {
            var column = -1
            do throws(PropertyListError) {
                let key = try table.integer(ofObject: try table.element(row, of: entityTable.keys))
                var values: [String: StoreValue] = [:]
                for position in attributes.indices {
                    column = position
                    if let value = try value(ofCell: try table.element(row, of: attributes[position].cells), type: attributes[position].type) {
                        values[attributes[position].name] = value
                    }
                }
                var keys: [String: [Int64]] = [:]
                for position in relationships.indices {
                    column = attributes.count + position
                    let targets = try targets(ofCell: try table.element(row, of: relationships[position].cells))
                    if !targets.isEmpty { keys[relationships[position].name] = targets }
                }
                objects.append(AtomicStoreObject(entityName: entityTable.name, primaryKey: key, attributes: values, relationships: keys))
            } catch {
                throw rowError(error, row: row, column: column, of: entityTable)
            }
        }
    }

    /// The error for a cell that cannot be read, naming the object and the column.
    private func rowError(_ error: PropertyListError, row: Int, column: Int, of entityTable: EntityTable) -> StoreError {
        // Which column was being read: -1 the key, then attributes, then relationships.
        let attributes = entityTable.attributes
        let property: String =
            switch column {
            case ..<0: "its key"
            case ..<attributes.count: "attribute '\(attributes[column].name)'"
            default: "relationship '\(entityTable.relationships[column - attributes.count].name)'"
            }
        return StoreError(.corrupt, "the binary store's \(entityTable.context), object \(row + 1) of \(entityTable.keys.count), \(property): \(error)")
    }
}
