import StoreCore

/// The `INSERT … SELECT` statements that fill the destination's tables from the old ones
/// (renamed `Z_OLD_<name>`): one per carried entity, one per join table, and — when entities
/// were removed — the statements that clear references to their objects.
///
/// Each destination column is computed from the source row (`s`): an attribute from the
/// attribute its mapping names (converted by `stowage_convert` when its type changed; the
/// default value for a new attribute or the nils of one that became required), a to-one key
/// from the source's to-one, the hidden owner key of a to-many without inverse from however
/// the source held that relationship, and positions from the source's `Z_FOK_` columns (or the
/// key, for a relationship that became ordered).
///
/// For example:
///
/// ```swift
/// for (sql, values) in try RowCopier(request: request, source: old, destination: new, keys: keys).statements() {
///     try connection.run(sql, values)
/// }
/// ```
struct RowCopier {
    let request: StoreMigrationRequest
    let source: SQLiteSchema
    let destination: SQLiteSchema
    let keys: KeyOffsets

    /// The name an old table has while the migration runs.
    static func old(_ table: String) -> String { "Z_OLD_" + table }

    var mapping: MappingModel { request.mapping }

    func statements() throws -> [(sql: String, values: [SQLValue])] {
        var statements: [(sql: String, values: [SQLValue])] = []
        for entity in request.destinationModel.entities.sorted(by: { $0.name < $1.name }) {
            if let statement = try rowCopy(into: entity) { statements.append(statement) }
        }
        statements += try joinTableCopies().map { ($0, []) }
        let carried = Set(request.destinationModel.entities.compactMap { carriedSource(of: $0.name) })
        if request.sourceModel.entities.contains(where: { !carried.contains($0.name) }) {
            statements += danglingReferenceCleanup().map { ($0, []) }
        }
        return statements
    }

    /// The source entity whose objects become objects of `destinationEntity`, if any.
    private func carriedSource(of destinationEntity: String) -> String? {
        guard let plan = mapping.entityMapping(forDestinationEntity: destinationEntity),
            plan.mappingType == .copy || plan.mappingType == .transform
        else { return nil }
        return plan.sourceEntityName
    }

    // MARK: Entity rows

    private func rowCopy(into entity: EntityDescription) throws -> (sql: String, values: [SQLValue])? {
        guard let plan = mapping.entityMapping(forDestinationEntity: entity.name) else { return nil }
        switch plan.mappingType {
        case .add: return nil
        case .copy, .transform: break
        default:
            throw MigrationError(.invalidMapping, entity: entity.name, "entity mapping \(plan.name) is not a copy, transform, add or remove mapping, which needs a migration manager")
        }
        guard plan.sourceExpression == nil else {
            throw MigrationError(.invalidMapping, entity: entity.name, "entity mapping \(plan.name) has a source expression, which needs a migration manager")
        }
        guard let sourceName = plan.sourceEntityName, let from = source.tables[sourceName], let to = destination.tables[entity.name] else {
            throw MigrationError(.invalidMapping, entity: entity.name, "entity mapping \(plan.name) names an entity the models do not have")
        }
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var expressions = [keys.key("s.Z_PK", sourceEntity: sourceName), String(to.number), "s.Z_OPT"]
        var values: [SQLValue] = []
        for column in to.columns {
            switch column.kind {
            case .attribute(_, let externalStorage):
                guard let attribute = entity.attributesByName[column.property] else { continue }
                columns.append(column.name)
                expressions.append(try attributeExpression(
                    attribute, externalStorage: externalStorage, mapping: plan.attributeMappings.first { $0.name == column.property },
                    from: from, values: &values))
            case .toOne(_, let orderColumn):
                let carried = try toOneExpressions(column.property, plan: plan, from: from, entity: entity.name)
                columns.append(column.name)
                expressions.append(carried.key)
                if let orderColumn {
                    columns.append(orderColumn)
                    expressions.append(carried.order)
                }
            }
        }
        for hidden in hiddenOwnerColumns(of: to) where !columns.contains(hidden.column) {
            let carried = try hiddenOwnerExpressions(hidden.owner, relationship: hidden.relationship, memberTable: from)
            columns.append(hidden.column)
            expressions.append(carried.key)
            if let order = hidden.order {
                columns.append(order)
                expressions.append(carried.order)
            }
        }
        let sql = """
            INSERT INTO \(to.table) (\(columns.joined(separator: ", "))) \
            SELECT \(expressions.joined(separator: ", ")) FROM \(Self.old(from.table)) AS s WHERE s.Z_ENT = \(from.number)
            """
        return (sql, values)
    }

    private func attributeExpression(
        _ attribute: AttributeDescription, externalStorage: Bool, mapping property: PropertyMapping?, from: EntityTable, values: inout [SQLValue]
    ) throws -> String {
        var expression = "NULL"
        if let property, let key = property.sourceKey {
            guard let column = from.column(for: key), case .attribute(_, let sourceExternal) = column.kind else {
                throw MigrationError(.invalidMapping, entity: attribute.entity?.name, key: attribute.name, "the mapping takes \(attribute.name) from \(key), which is not a stored attribute of \(from.name)")
            }
            guard sourceExternal == externalStorage else {
                throw MigrationError(
                    .migrationFailed, entity: attribute.entity?.name, key: attribute.name,
                    "allowsExternalBinaryDataStorage changed for \(attribute.name); a SQLite store is not migrated in place across that change")
            }
            expression = "s." + column.name
            if let conversion = property.conversion {
                expression = "\(SQLFunctions.convertName)(\(expression), '\(conversion.sourceType.name)', '\(conversion.destinationType.name)')"
            }
        } else if property?.valueExpression != nil {
            throw MigrationError(.invalidMapping, entity: attribute.entity?.name, key: attribute.name, "value expressions other than $source.<key> need a migration manager")
        }
        // New attributes take their default, as do the nils of one that became required.
        let isNew = property?.sourceKey == nil
        if !attribute.defaultValue.isNull, isNew || !attribute.isOptional {
            values.append(SQLiteValueCoder.encode(attribute.defaultValue))
            expression = isNew ? "?" : "COALESCE(\(expression), ?)"
        }
        return expression
    }

    /// A to-one's key (and its position in the inverse's ordered list) from the source's to-one.
    private func toOneExpressions(_ name: String, plan: EntityMapping, from: EntityTable, entity: String) throws -> (key: String, order: String) {
        guard let key = plan.relationshipMappings.first(where: { $0.name == name })?.sourceKey else { return ("NULL", "NULL") }
        guard let column = from.column(for: key), case .toOne(let destination, let orderColumn) = column.kind else {
            throw MigrationError(.invalidMapping, entity: entity, key: name, "the mapping takes to-one \(name) from \(key), which is not a to-one relationship of \(from.name)")
        }
        return (keys.key("s." + column.name, sourceEntity: destination), orderColumn.map { "s." + $0 } ?? "s.Z_PK")
    }

    /// The owner-key columns in `table`'s root table of to-many relationships without an
    /// inverse whose members may be objects of `table`'s entity.
    private func hiddenOwnerColumns(of table: EntityTable) -> [(owner: String, relationship: String, column: String, order: String?)] {
        var result: [(owner: String, relationship: String, column: String, order: String?)] = []
        for entity in request.destinationModel.entities.sorted(by: { $0.name < $1.name }) {
            for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription })
            where relationship.isToMany && !relationship.isTransient && relationship.inverseName == nil {
                guard case .foreignKey(let member, let memberTable, let column, let order)? = destination.tables[entity.name]?.toMany[relationship.name],
                    memberTable == table.table, destination.tables[member]?.entityNumbers.contains(table.number) == true
                else { continue }
                result.append((entity.name, relationship.name, column, order))
            }
        }
        return result
    }

    /// The owner key a member row holds for a to-many without inverse, from however the source
    /// held the relationship: the same hidden column, or a to-one without inverse that became
    /// this to-many (the owner is the object whose to-one pointed at this row).
    private func hiddenOwnerExpressions(_ owner: String, relationship: String, memberTable: EntityTable) throws -> (key: String, order: String) {
        guard let sourceOwner = carriedSource(of: owner), let plan = mapping.entityMapping(forDestinationEntity: owner),
            let key = plan.relationshipMappings.first(where: { $0.name == relationship })?.sourceKey,
            let sourceTable = source.tables[sourceOwner]
        else { return ("NULL", "NULL") }
        if case .foreignKey(_, let table, let column, let order)? = sourceTable.toMany[key], table == memberTable.table {
            return (keys.key("s." + column, sourceEntity: sourceOwner), order.map { "s." + $0 } ?? "s.Z_PK")
        }
        if let column = sourceTable.column(for: key), case .toOne = column.kind {
            let family = sourceTable.entityNumbers.map(String.init).joined(separator: ", ")
            let ownerKey = keys.key("o.Z_PK", sourceEntity: sourceOwner)
            return ("(SELECT \(ownerKey) FROM \(Self.old(sourceTable.table)) AS o WHERE o.\(column.name) = s.Z_PK AND o.Z_ENT IN (\(family)) LIMIT 1)", "s.Z_PK")
        }
        throw MigrationError(.invalidMapping, entity: owner, key: relationship, "\(owner).\(relationship) cannot be carried from \(sourceOwner).\(key)")
    }
}
