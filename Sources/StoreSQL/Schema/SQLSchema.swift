import StoreCore

/// The whole model mapped onto Core Data's SQL layout: entity numbers, one table per root
/// entity, a column per stored attribute and to-one relationship, join tables for
/// many-to-many relationships and `Z_FOK_` columns for ordered ones.
///
/// Built from the model alone, so the same model always gives the same layout — which is what
/// lets a store written by Core Data be read with its model. docs/sqlite-layout.md describes it.
///
/// For example:
///
/// ```swift
/// let schema = SQLSchema(model: model)
/// schema.tables["Post"]?.table                 // "ZPOST"
/// schema.tables["Post"]?.column(for: "title")  // ZTITLE
/// ```
package final class SQLSchema: Sendable {
    /// Every entity's mapping, by entity name.
    package let tables: [String: EntityTable]
    /// Entity names by `Z_ENT`.
    package let entityNames: [Int64: String]
    /// The tables to create: one per root entity, with every column of its hierarchy.
    package let rootTables: [RootTable]
    package let joinTables: [JoinTable]
    /// R-tree fetch indexes by entity name and index name.
    package let rTreeIndexes: [String: [String: RTreeIndex]]
    /// What the store's database does its own way.
    package let dialect: any SQLDialect

    package struct RootTable: Sendable {
        package let name: String
        package let rootEntity: String
        /// Attribute, foreign-key and order columns with their declared SQL types, in order.
        package let columns: [(name: String, type: String)]
    }

    /// The layout of `model`; `entityNumbers` are those an existing store recorded in
    /// `Z_PRIMARYKEY` (a new store numbers the entities as Core Data does:
    /// ``coreDataEntityNumbers(of:)``).
    package init(model: ManagedObjectModel, entityNumbers: [String: Int64]? = nil, dialect: any SQLDialect) {
        self.dialect = dialect
        let numbers = entityNumbers ?? Self.coreDataEntityNumbers(of: model)
        var names: [Int64: String] = [:]
        for (name, number) in numbers { names[number] = name }

        // A to-many relationship without an inverse keeps its owner's key in a column of the
        // destination's table, named after the owner's entity number (Core Data's
        // `Z<n><RELATIONSHIP>`, plus `Z_FOK_<n><RELATIONSHIP>` when ordered).
        var hiddenColumns: [String: [(relationship: RelationshipDescription, column: String, order: String?)]] = [:]
        for entity in model.entities {
            for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription })
            where relationship.isToMany && !relationship.isTransient && relationship.inverseRelationship == nil {
                guard let number = numbers[entity.name], let destination = relationship.destinationEntity else { continue }
                let column = "Z\(number)\(relationship.name.uppercased())"
                hiddenColumns[destination.rootEntity.name, default: []].append(
                    (relationship, column, relationship.isOrdered ? "Z_FOK_\(number)\(relationship.name.uppercased())" : nil))
            }
        }

        // Column names per root table: each declared property gets one, siblings that clash
        // get numeric suffixes.
        var columnNames: [ObjectIdentifier: String] = [:]
        var orderColumnNames: [ObjectIdentifier: String] = [:]
        var rootTables: [RootTable] = []
        for root in model.entities where root.superentity == nil {
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            var columns: [CoreDataColumnOrder] = []
            func unique(_ base: String) -> String {
                var name = base, suffix = 1
                while used.contains(name) { name = base + String(suffix); suffix += 1 }
                used.insert(name)
                return name
            }
            for entity in Self.hierarchy(of: root, numbers: numbers) {
                for property in entity.declaredPropertiesFlattened where !property.isTransient {
                    if let attribute = property as? AttributeDescription {
                        let name = unique(Self.columnName(of: attribute))
                        columnNames[ObjectIdentifier(attribute)] = name
                        columns.append(.init(name: name, attribute: attribute))
                    } else if let relationship = property as? RelationshipDescription, !relationship.isToMany {
                        let name = unique(Self.columnName(of: relationship))
                        columnNames[ObjectIdentifier(relationship)] = name
                        columns.append(.init(name: name, key: relationship.name, kind: .key))
                        if relationship.inverseRelationship?.isOrdered == true, relationship.inverseRelationship?.isToMany == true {
                            let order = unique("Z_FOK_" + relationship.name.uppercased())
                            orderColumnNames[ObjectIdentifier(relationship)] = order
                            columns.append(.init(name: order, key: relationship.name, kind: .key, isOrder: true))
                        }
                    }
                }
            }
            for hidden in hiddenColumns[root.name] ?? [] {
                let name = unique(hidden.column)
                columnNames[ObjectIdentifier(hidden.relationship)] = name
                columns.append(.init(name: name, key: name, kind: .hiddenKey))
                if let order = hidden.order {
                    let orderName = unique(order)
                    orderColumnNames[ObjectIdentifier(hidden.relationship)] = orderName
                    columns.append(.init(name: orderName, key: name, kind: .hiddenKey, isOrder: true))
                }
            }
            columns.sort()
            rootTables.append(RootTable(name: Self.tableName(root.name), rootEntity: root.name, columns: columns.map { ($0.name, $0.type) }))
        }

        // Join tables, named after the side whose name sorts last.
        var joinTables: [JoinTable] = []
        var joinStorage: [ObjectIdentifier: ToManyStorage] = [:]
        for entity in model.entities {
            for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription })
            where relationship.isToMany && !relationship.isTransient {
                guard let inverse = relationship.inverseRelationship, inverse.isToMany,
                    Self.ownsJoinTable(relationship, inverse: inverse),
                    let owner = relationship.entity, let member = inverse.entity,
                    let ownerNumber = numbers[owner.name], let memberNumber = numbers[member.name]
                else { continue }
                let table = "Z_\(ownerNumber)\(relationship.name.uppercased())"
                let ownerColumn = "Z_\(ownerNumber)\(inverse.name.uppercased())"
                var memberColumn = "Z_\(memberNumber)\(relationship.name.uppercased())"
                if memberColumn == ownerColumn { memberColumn += "1" }
                let ownerOrder = relationship.isOrdered ? "Z_FOK_" + memberColumn.dropFirst(2) : nil
                let memberOrder = inverse.isOrdered ? "Z_FOK_" + ownerColumn.dropFirst(2) : nil
                joinTables.append(JoinTable(name: table, ownerColumn: ownerColumn, memberColumn: memberColumn, orderColumns: [ownerOrder, memberOrder].compactMap { $0 }))
                joinStorage[ObjectIdentifier(relationship)] = .joinTable(
                    destination: member.name, table: table, ownerColumn: ownerColumn, memberColumn: memberColumn, orderColumn: ownerOrder)
                joinStorage[ObjectIdentifier(inverse)] = .joinTable(
                    destination: owner.name, table: table, ownerColumn: memberColumn, memberColumn: ownerColumn, orderColumn: memberOrder)
            }
        }

        var tables: [String: EntityTable] = [:]
        for entity in model.entities {
            guard let number = numbers[entity.name] else { continue }
            let root = entity.rootEntity
            var columns: [Column] = []
            var toMany: [String: ToManyStorage] = [:]
            for (propertyIndex, property) in entity.properties.enumerated() where !property.isTransient {
                if let attribute = property as? AttributeDescription, let name = columnNames[ObjectIdentifier(attribute)] {
                    columns.append(Column(
                        property: attribute.name, propertyIndex: propertyIndex, name: name,
                        kind: .attribute(attribute.attributeType, externalStorage: attribute.allowsExternalBinaryDataStorage)))
                } else if let relationship = property as? RelationshipDescription {
                    if !relationship.isToMany, let name = columnNames[ObjectIdentifier(relationship)] {
                        columns.append(Column(property: relationship.name, propertyIndex: propertyIndex, name: name, kind: .toOne(
                            destination: relationship.destinationEntityName, orderColumn: orderColumnNames[ObjectIdentifier(relationship)])))
                    } else if relationship.isToMany {
                        if let storage = joinStorage[ObjectIdentifier(relationship)] {
                            toMany[relationship.name] = storage
                        } else if relationship.inverseRelationship == nil, let column = columnNames[ObjectIdentifier(relationship)],
                            let destination = relationship.destinationEntity
                        {
                            toMany[relationship.name] = .foreignKey(
                                destination: destination.name, table: Self.tableName(destination.rootEntity.name),
                                column: column, orderColumn: orderColumnNames[ObjectIdentifier(relationship)])
                        } else if let inverse = relationship.inverseRelationship, let column = columnNames[ObjectIdentifier(inverse)],
                            let destination = relationship.destinationEntity {
                            toMany[relationship.name] = .foreignKey(
                                destination: destination.name, table: Self.tableName(destination.rootEntity.name),
                                column: column, orderColumn: orderColumnNames[ObjectIdentifier(inverse)])
                        }
                    }
                }
            }
            var byProperty: [String: Int] = [:]
            for (index, column) in columns.enumerated() { byProperty[column.property] = index }
            let family = Self.hierarchy(of: entity, numbers: numbers).compactMap { numbers[$0.name] }
            tables[entity.name] = EntityTable(
                name: entity.name, number: number, superNumber: entity.superentity.flatMap { numbers[$0.name] } ?? 0,
                rootName: root.name, table: Self.tableName(root.name), entityNumbers: family,
                columns: columns, columnsByProperty: byProperty, toMany: toMany,
                sharesTable: !root.subentities.isEmpty)
        }
        self.tables = tables
        self.entityNames = names
        self.rootTables = rootTables.sorted { $0.name < $1.name }
        self.joinTables = joinTables.sorted { $0.name < $1.name }
        var rTrees: [String: [String: RTreeIndex]] = [:]
        for entity in model.entities {
            guard let table = tables[entity.name] else { continue }
            for index in entity.indexes where index.kind == .rTree {
                let resolved = try? RTreeIndex(entity: table, index: index) { property in
                    guard let column = table.column(for: property) else { throw ModelError(.invalidIndex, "") }
                    return column.name
                }
                if let resolved { rTrees[entity.name, default: [:]][index.name] = resolved }
            }
        }
        self.rTreeIndexes = rTrees
    }

    /// The `userInfo` key naming a property's column explicitly, for the columns an inferred model
    /// cannot name after a property (`Z1METADATA`, Core Data's hidden inverse of a to-many
    /// without one).
    package static let columnNameKey = "Stowage.SQLiteColumn"

    /// `Z` + the property name, upper-cased, unless ``columnNameKey`` says otherwise. A
    /// composite's element, named by key path, is `Z` + the path with `_` for each dot
    /// (`location.latitude` → `ZLOCATION_LATITUDE`).
    package static func columnName(of property: PropertyDescription) -> String {
        property.userInfo[columnNameKey] ?? "Z" + property.name.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// `Z` + the entity name, upper-cased.
    package static func tableName(_ entityName: String) -> String { "Z" + entityName.uppercased() }

    /// The entity followed by its descendants, in entity-number order.
    private static func hierarchy(of entity: EntityDescription, numbers: [String: Int64]) -> [EntityDescription] {
        var result = [entity]
        for sub in entity.subentities.sorted(by: { (numbers[$0.name] ?? 0) < (numbers[$1.name] ?? 0) }) {
            result += hierarchy(of: sub, numbers: numbers)
        }
        return result
    }

    /// Which side of a many-to-many pair names the join table: the relationship whose name sorts
    /// last (as in the stores Core Data writes: `Author.books`/`Book.authors` → `Z_1BOOKS`),
    /// and for equal names the one on the entity whose name sorts first.
    private static func ownsJoinTable(_ relationship: RelationshipDescription, inverse: RelationshipDescription) -> Bool {
        if relationship.name != inverse.name { return relationship.name > inverse.name }
        return (relationship.entity?.name ?? "") <= (inverse.entity?.name ?? "")
    }

    /// The mapping of an entity, or a model error naming it.
    package func table(for entityName: String) throws -> EntityTable {
        guard let table = tables[entityName] else {
            throw ModelError(.unknownEntity, entity: entityName, "the model has no entity named \(entityName)")
        }
        return table
    }
}
