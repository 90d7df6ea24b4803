import StoreCore

extension RowCopier {
    /// One `INSERT … SELECT` per destination join table, from the pairs of the source
    /// relationship its owner side was mapped from — a join table, a to-many's foreign key, or
    /// a to-one that became a to-many — keeping the ordered positions the source held (the
    /// other object's key where the source was not ordered).
    package func joinTableCopies() throws -> [String] {
        var statements: [String] = []
        for join in destination.joinTables {
            guard let side = owningSide(of: join) else { continue }
            let relationship = side.relationship
            guard let inverse = relationship.inverseRelationship, let owner = relationship.entity, let member = inverse.entity else { continue }
            let pairs: Pairs
            if let found = try sourcePairs(of: owner.name, relationship.name) {
                pairs = found
            } else if let found = try sourcePairs(of: member.name, inverse.name) {
                pairs = found.swapped
            } else {
                continue  // a new relationship: no pairs yet
            }
            var columns = [join.ownerColumn, join.memberColumn]
            var values = ["o", "m"]
            if relationship.isOrdered, let order = side.orderColumn {
                columns.append(order)
                values.append("COALESCE(ownerOrder, m)")
            }
            if inverse.isOrdered, let order = join.orderColumns.first(where: { $0 != side.orderColumn }) {
                columns.append(order)
                values.append("COALESCE(memberOrder, o)")
            }
            statements.append("""
                INSERT OR IGNORE INTO \(join.name) (\(columns.joined(separator: ", "))) \
                SELECT \(values.joined(separator: ", ")) FROM (\(pairs.sql))
                """)
        }
        return statements
    }

    /// The relationship whose owner column is the join table's owner column, and its order column.
    private func owningSide(of join: JoinTable) -> (relationship: RelationshipDescription, orderColumn: String?)? {
        for entity in request.destinationModel.entities {
            for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription }) {
                if case .joinTable(_, join.name, join.ownerColumn, _, let order)? = destination.tables[entity.name]?.toMany[relationship.name] {
                    return (relationship, order)
                }
            }
        }
        return nil
    }

    /// A query over old tables giving `o`, `m` (owner and member keys, shifted), `ownerOrder`
    /// (the member's position in the owner's list) and `memberOrder` (the owner's position in
    /// the member's list), `NULL` where the source kept none.
    struct Pairs {
        let sql: String
        var swapped: Pairs {
            Pairs(sql: "SELECT m AS o, o AS m, memberOrder AS ownerOrder, ownerOrder AS memberOrder FROM (\(sql))")
        }
    }

    /// The pairs of the source relationship that `entity.relationship` of the destination was
    /// mapped from; `nil` when it was mapped from none.
    private func sourcePairs(of entity: String, _ relationship: String) throws -> Pairs? {
        guard let plan = mapping.entityMapping(forDestinationEntity: entity), plan.mappingType == .copy || plan.mappingType == .transform,
            let sourceEntity = plan.sourceEntityName, let table = source.tables[sourceEntity],
            let key = plan.relationshipMappings.first(where: { $0.name == relationship })?.sourceKey
        else { return nil }
        switch table.toMany[key] as ToManyStorage? {
        case .joinTable(let member, let joinName, let ownerColumn, let memberColumn, let order)?:
            // The inverse's order lives in the same join table.
            var inverseOrder = "NULL"
            if let inverse = request.sourceModel.entitiesByName[sourceEntity]?.relationshipsByName[key]?.inverseName,
                case .joinTable(_, joinName, _, _, let other?)? = source.tables[member]?.toMany[inverse]
            {
                inverseOrder = other
            }
            return Pairs(sql: """
                SELECT \(keys.key(ownerColumn, sourceEntity: sourceEntity)) AS o, \(keys.key(memberColumn, sourceEntity: member)) AS m, \
                \(order ?? "NULL") AS ownerOrder, \(inverseOrder) AS memberOrder FROM \(sourceTable(joinName))
                """)
        case .foreignKey(let member, let memberTable, let column, let order)?:
            let family = source.tables[member]?.entityNumbers.map(String.init).joined(separator: ", ") ?? ""
            return Pairs(sql: """
                SELECT \(keys.key(column, sourceEntity: sourceEntity)) AS o, \(keys.key("Z_PK", sourceEntity: member)) AS m, \
                \(order ?? "NULL") AS ownerOrder, NULL AS memberOrder FROM \(sourceTable(memberTable)) \
                WHERE \(column) IS NOT NULL AND Z_ENT IN (\(family))
                """)
        case nil:
            guard let column = table.column(for: key), case .toOne(let member, let order) = column.kind else {
                throw MigrationError(.invalidMapping, entity: entity, key: relationship, "\(entity).\(relationship) is mapped from \(sourceEntity).\(key), which is not a relationship")
            }
            let family = table.entityNumbers.map(String.init).joined(separator: ", ")
            return Pairs(sql: """
                SELECT \(keys.key("Z_PK", sourceEntity: sourceEntity)) AS o, \(keys.key(column.name, sourceEntity: member)) AS m, \
                NULL AS ownerOrder, \(order ?? "NULL") AS memberOrder FROM \(sourceTable(table.table)) \
                WHERE \(column.name) IS NOT NULL AND Z_ENT IN (\(family))
                """)
        }
    }

    /// Clears references to objects whose entity was removed: to-one keys and owner keys set to
    /// `NULL`, join-table rows deleted.
    package func danglingReferenceCleanup() -> [String] {
        var statements: [String] = []
        func exists(_ key: String, in entity: String) -> String {
            guard let table = destination.tables[entity] else { return "0" }
            return "EXISTS (SELECT 1 FROM \(table.table) AS t WHERE t.Z_PK = \(key) AND t.Z_ENT IN (\(table.entityNumbers.map(String.init).joined(separator: ", "))))"
        }
        for entity in request.destinationModel.entities {
            guard let table = destination.tables[entity.name] else { continue }
            let family = table.entityNumbers.map(String.init).joined(separator: ", ")
            for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription }) where !relationship.isTransient {
                if !relationship.isToMany, let column = table.column(for: relationship.name), case .toOne(let target, let order) = column.kind {
                    let clear = ([column.name] + (order.map { [$0] } ?? [])).map { "\($0) = NULL" }.joined(separator: ", ")
                    statements.append("""
                        UPDATE \(table.table) SET \(clear) WHERE Z_ENT IN (\(family)) AND \(column.name) IS NOT NULL \
                        AND NOT \(exists(table.table + "." + column.name, in: target))
                        """)
                } else if relationship.isToMany, relationship.inverseRelationship == nil,
                    case .foreignKey(let member, let memberTable, let column, let order)? = table.toMany[relationship.name]
                {
                    let clear = ([column] + (order.map { [$0] } ?? [])).map { "\($0) = NULL" }.joined(separator: ", ")
                    statements.append("""
                        UPDATE \(memberTable) SET \(clear) WHERE \(column) IS NOT NULL AND NOT \(exists(memberTable + "." + column, in: entity.name)) \
                        AND Z_ENT IN (\(destination.tables[member]?.entityNumbers.map(String.init).joined(separator: ", ") ?? ""))
                        """)
                } else if case .joinTable(let member, let join, let ownerColumn, let memberColumn, _)? = table.toMany[relationship.name],
                    destination.joinTables.contains(where: { $0.name == join && $0.ownerColumn == ownerColumn })
                {
                    statements.append("""
                        DELETE FROM \(join) WHERE NOT \(exists(join + "." + ownerColumn, in: entity.name)) \
                        OR NOT \(exists(join + "." + memberColumn, in: member))
                        """)
                }
            }
        }
        return statements
    }
}
