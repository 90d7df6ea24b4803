import StoreCore

/// How primary keys move in a migration. Keys stay as they are — object IDs and URIs remain
/// valid — unless the destination puts objects of two source tables into one table (an entity
/// hierarchy that now joins two former roots), where their keys could clash; then every source
/// table's keys are shifted past the previous tables' highest key, and every reference with them.
///
/// For example:
///
/// ```swift
/// let keys = try KeyOffsets(source: old, destination: new, mapping: mapping, sourceModel: v1, destinationModel: v2,
///                          stored: stored) { table in try highestKey(in: table) }
/// keys.key("s.Z_PK", sourceEntity: "Note")   // "s.Z_PK", or "(s.Z_PK + 1200)"
/// ```
package struct KeyOffsets {
    /// The shift of each source root entity's keys.
    private var offsets: [String: Int64] = [:]
    /// The highest key each destination root's table may hold after the shift.
    private var highestKeys: [String: Int64] = [:]
    private let sourceModel: ManagedObjectModel

    /// `highestKey(table)` is the highest `Z_PK` a source table holds (nil when empty).
    package init(
        source: SQLSchema, destination: SQLSchema, mapping: MappingModel, sourceModel: ManagedObjectModel,
        destinationModel: ManagedObjectModel, stored: [String: StoredEntity], highestKey: (String) throws -> Int64?
    ) throws {
        self.sourceModel = sourceModel
        var contributors: [String: Set<String>] = [:]
        for entity in destinationModel.entities {
            guard let plan = mapping.entityMapping(forDestinationEntity: entity.name), plan.mappingType == .copy || plan.mappingType == .transform,
                let sourceName = plan.sourceEntityName, let sourceEntity = sourceModel.entitiesByName[sourceName]
            else { continue }
            contributors[entity.rootEntity.name, default: []].insert(sourceEntity.rootEntity.name)
        }
        guard contributors.values.contains(where: { $0.count > 1 }) else { return }
        var next: Int64 = 0
        var highest: [String: Int64] = [:]
        for table in source.rootTables.sorted(by: { $0.rootEntity < $1.rootEntity }) {
            offsets[table.rootEntity] = next
            var maximum = stored[table.rootEntity]?.max ?? 0
            if let key = try highestKey(table.name) { maximum = max(maximum, key) }
            highest[table.rootEntity] = next + maximum
            next += maximum
        }
        for (root, sources) in contributors {
            highestKeys[root] = sources.compactMap { highest[$0] }.max() ?? 0
        }
    }

    /// `expression` (a key of an object of `sourceEntity` or its descendants) as the key it becomes.
    package func key(_ expression: String, sourceEntity: String) -> String {
        guard let root = sourceModel.entitiesByName[sourceEntity]?.rootEntity.name, let offset = offsets[root], offset != 0 else { return expression }
        return "(\(expression) + \(offset))"
    }

    /// The highest key a destination root's table holds after shifting (0 when nothing moved).
    package func highestKey(forDestinationRoot root: String) -> Int64 {
        highestKeys[root] ?? 0
    }
}

/// What a store recorded in `Z_PRIMARYKEY` for one entity: its number and `Z_MAX`.
package struct StoredEntity: Sendable {
    package let number: Int64
    package let max: Int64

    package init(number: Int64, max: Int64) {
        self.number = number
        self.max = max
    }
}

extension SQLSchema {
    /// The entity numbers of a migration's destination: entities carried over keep their number
    /// (so `Z_ENT` values, hidden columns and join tables named after numbers, and history stay
    /// as they are); new ones are numbered after the highest, in name order.
    package static func migrationEntityNumbers(
        destinationModel: ManagedObjectModel, mapping: MappingModel, stored: [String: StoredEntity]
    ) -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        var next = (stored.values.map(\.number).max() ?? 0) + 1
        for entity in destinationModel.entities.sorted(by: { $0.name < $1.name }) {
            if let plan = mapping.entityMapping(forDestinationEntity: entity.name), plan.mappingType == .copy || plan.mappingType == .transform,
                let sourceName = plan.sourceEntityName, let number = stored[sourceName]?.number
            {
                numbers[entity.name] = number
            } else {
                numbers[entity.name] = next
                next += 1
            }
        }
        return numbers
    }
}

extension SQLSchema {
    /// The `Z_PRIMARYKEY` rows of a migrated store (this schema is the destination's): one per
    /// entity; a root's `Z_MAX` never goes below what the store had handed out (keys of deleted
    /// objects are not reused) nor below the highest key its table now holds
    /// (`highestKey(table)`, nil when empty) or the shifted keys may reach.
    package func migratedPrimaryKeys(
        destinationModel: ManagedObjectModel, mapping: MappingModel, stored: [String: StoredEntity], keys: KeyOffsets,
        highestKey: (String) throws -> Int64?
    ) throws -> [(number: Int64, name: String, superNumber: Int64, max: Int64)] {
        var rows: [(number: Int64, name: String, superNumber: Int64, max: Int64)] = []
        for entity in destinationModel.entities {
            guard let table = tables[entity.name] else { continue }
            let sourceName = mapping.entityMapping(forDestinationEntity: entity.name)?.sourceEntityName
            var maximum = sourceName.flatMap { stored[$0]?.max } ?? 0
            if entity.superentity == nil {
                if let highest = try highestKey(table.table) { maximum = max(maximum, highest) }
                maximum = max(maximum, keys.highestKey(forDestinationRoot: entity.name))
            }
            rows.append((table.number, entity.name, table.superNumber, maximum))
        }
        return rows
    }
}

extension SQLSchema {
    /// Replaces `Z_PRIMARYKEY` with one row per destination entity (``migratedPrimaryKeys(destinationModel:mapping:stored:keys:highestKey:)``),
    /// inside the migration's transaction on `connection`.
    package func rewritePrimaryKeys(
        destinationModel: ManagedObjectModel, mapping: MappingModel, stored: [String: StoredEntity], keys: KeyOffsets, on connection: some SQLConnection
    ) throws {
        let rows = try migratedPrimaryKeys(destinationModel: destinationModel, mapping: mapping, stored: stored, keys: keys) { table in
            if case .integer(let highest)? = try connection.scalar("SELECT MAX(Z_PK) FROM \(table)", []) { return highest }
            return nil
        }
        try connection.run("DELETE FROM Z_PRIMARYKEY", [])
        let parameters = (1...4).map { dialect.parameter($0, declaredType: nil) }.joined(separator: ", ")
        for row in rows {
            try connection.run(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(parameters))",
                [.integer(row.number), .text(row.name), .integer(row.superNumber), .integer(row.max)])
        }
    }
}
