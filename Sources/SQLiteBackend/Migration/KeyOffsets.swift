import StoreCore
import StoreSQL

/// How primary keys move in a migration. Keys stay as they are — object IDs and URIs remain
/// valid — unless the destination puts objects of two source tables into one table (an entity
/// hierarchy that now joins two former roots), where their keys could clash; then every source
/// table's keys are shifted past the previous tables' highest key, and every reference with them.
///
/// For example:
///
/// ```swift
/// let keys = try KeyOffsets(source: old, destination: new, mapping: mapping, sourceModel: v1, destinationModel: v2,
///                          stored: stored, connection: connection)
/// keys.key("s.Z_PK", sourceEntity: "Note")   // "s.Z_PK", or "(s.Z_PK + 1200)"
/// ```
struct KeyOffsets {
    /// The shift of each source root entity's keys.
    private var offsets: [String: Int64] = [:]
    /// The highest key each destination root's table may hold after the shift.
    private var highestKeys: [String: Int64] = [:]
    private let sourceModel: ManagedObjectModel

    init(
        source: SQLSchema, destination: SQLSchema, mapping: MappingModel, sourceModel: ManagedObjectModel,
        destinationModel: ManagedObjectModel, stored: [String: SQLiteMigration.StoredEntity], connection: SQLiteConnection
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
            if case .integer(let key)? = try connection.scalar("SELECT MAX(Z_PK) FROM \(table.name)") { maximum = max(maximum, key) }
            highest[table.rootEntity] = next + maximum
            next += maximum
        }
        for (root, sources) in contributors {
            highestKeys[root] = sources.compactMap { highest[$0] }.max() ?? 0
        }
    }

    /// `expression` (a key of an object of `sourceEntity` or its descendants) as the key it becomes.
    func key(_ expression: String, sourceEntity: String) -> String {
        guard let root = sourceModel.entitiesByName[sourceEntity]?.rootEntity.name, let offset = offsets[root], offset != 0 else { return expression }
        return "(\(expression) + \(offset))"
    }

    /// The highest key a destination root's table holds after shifting (0 when nothing moved).
    func highestKey(forDestinationRoot root: String) -> Int64 {
        highestKeys[root] ?? 0
    }
}
