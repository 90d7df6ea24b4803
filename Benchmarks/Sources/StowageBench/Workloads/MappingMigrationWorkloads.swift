import Foundation
import Stowage
import Synchronization

/// `migration.sqlite-mapping-1m`: a million-row SQLite store migrated in place with a mapping
/// model through the ``MigrationManager`` — a custom ``EntityMigrationPolicy``, value
/// expressions, an attribute conversion and a relationship looked up through `$manager` —
/// against the lightweight path (the SQLite migrator's `INSERT … SELECT`) making the same change
/// on a copy of the same file. Each side's peak memory is measured in a process of its own.
///
/// The store (v1: 1,000 `Group`s and 1,000,000 `Item`s with `number` Integer 64, `name` String,
/// `score` Double and a to-one `group`) is made once per process: an empty Stowage store filled
/// by raw `INSERT … SELECT`s (untimed), a group's items next to each other, as an application that
/// inserts a group with its items writes them. v2 renames `name` to `title` and makes `number` a Double.
/// `STOWAGE_BENCH_MAPPING_ROWS` sets another number of items (for a run that would not fit in
/// memory); the workload's name stays.
enum MappingMigrationWorkloads {
    static let rowCount = ProcessInfo.processInfo.environment["STOWAGE_BENCH_MAPPING_ROWS"].flatMap { Int($0) } ?? 1_000_000
    static let groupCount = 1_000

    static func workloads() -> [Workload] {
        [
            Workload(
                name: "migration.sqlite-mapping-1m", baselineName: "lightweight",
                ours: { try migrate(lightweight: false) },
                baseline: { try migrate(lightweight: true) }),
        ]
    }

    static func original() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Group") {
                .attribute("name", .string)
                .toMany("items", destination: "Item", inverse: "group")
            }
            EntityDescription("Item") {
                .attribute("number", .integer64)
                .attribute("name", .string)
                .attribute("score", .double)
                .toOne("group", destination: "Group", inverse: "items")
            }
        }
    }

    static func migrated() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Group") {
                .attribute("name", .string)
                .toMany("items", destination: "Item", inverse: "group")
            }
            EntityDescription("Item") {
                .attribute("number", .double)
                .attribute("title", .string, renamingIdentifier: "name")
                .attribute("score", .double)
                .toOne("group", destination: "Group", inverse: "items")
            }
        }
    }

    /// Makes each item through the default policy, as a policy of an application's that
    /// overrides a step would.
    final class ItemPolicy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        }
    }

    static func mapping() throws -> MappingModel {
        MappingModel(entityMappings: [
            EntityMapping(
                name: "GroupToGroup", mappingType: .transform, sourceEntityName: "Group", destinationEntityName: "Group",
                attributeMappings: [.from("name", to: "name")]),
            EntityMapping(
                name: "ItemToItem", mappingType: .custom, sourceEntityName: "Item", destinationEntityName: "Item",
                attributeMappings: [
                    .from("number", to: "number", conversion: AttributeConversion(from: .integer64, to: .double)),
                    .from("name", to: "title"),
                    PropertyMapping(name: "score", valueExpression: try StoreExpression(format: "$source.score")),
                ],
                relationshipMappings: [
                    PropertyMapping(name: "group", valueExpression: try StoreExpression(format:
                        "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'GroupToGroup', $source.group)")),
                ],
                entityMigrationPolicyClassName: "StowageBench.ItemPolicy"),
        ])
    }

    /// The populated v1 store, made on first use.
    private static let store = Mutex<URL?>(nil)

    private static func populatedStore() throws -> URL {
        try store.withLock { cached in
            if let cached { return cached }
            let directory = try Scratch.makeDirectory("mapping-source")
            let url = directory.appendingPathComponent("Items.sqlite")
            let container = PersistentContainer(name: "Items", managedObjectModel: try original())
            container.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: url)]
            try container.loadPersistentStores()
            for loaded in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(loaded) }
            let database = try RawDatabase.openWAL(path: url.path)
            try database.execute("""
                BEGIN;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(groupCount))
                INSERT INTO ZGROUP (Z_PK, Z_ENT, Z_OPT, ZNAME)
                SELECT i, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Group'), 1, 'group ' || i FROM n;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rowCount))
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZNAME, ZSCORE, ZGROUP)
                SELECT i, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'), 1, i * 7, 'item ' || i, i / 3.0, 1 + (i - 1) * \(groupCount) / \(rowCount) FROM n;
                UPDATE Z_PRIMARYKEY SET Z_MAX = \(groupCount) WHERE Z_NAME = 'Group';
                UPDATE Z_PRIMARYKEY SET Z_MAX = \(rowCount) WHERE Z_NAME = 'Item';
                COMMIT;
                PRAGMA wal_checkpoint(TRUNCATE);
                """)
            cached = url
            return url
        }
    }

    /// Migrates a copy of the store (the copy is untimed) with the mapping model, or by the
    /// lightweight path, and checks that every item arrived with its title, number and group.
    private static func migrate(lightweight: Bool) throws -> Duration {
        let source = try original(), destination = try migrated()
        let copy = try Scratch.copyDatabase(try populatedStore(), lightweight ? "mapping-lightweight" : "mapping-manager")
        defer { Scratch.remove(copy.directory) }
        let time: Duration
        if lightweight {
            guard let migrator = PersistentStoreRegistry.migrator(for: .sqlite) else { throw BenchmarkError.failed("no SQLite migrator is registered") }
            let request = StoreMigrationRequest(
                url: copy.url, type: .sqlite, options: [:], sourceModel: source, destinationModel: destination,
                mapping: try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination))
            time = try measure { try migrator.migrateStore(request) }
        } else {
            EntityMigrationPolicy.register(ItemPolicy.self, named: "ItemPolicy")
            let mapping = try mapping()
            time = try measure {
                try MigrationManager(sourceModel: source, destinationModel: destination).migrateStore(at: copy.url, type: .sqlite, with: mapping)
            }
        }
        let database = try RawDatabase(path: copy.url.path)
        let complete = try database.integer("""
            SELECT COUNT(*) FROM ZITEM i JOIN ZGROUP g ON g.Z_PK = i.ZGROUP
            WHERE i.ZTITLE = 'item ' || CAST(i.ZNUMBER / 7 AS INTEGER) AND g.ZNAME = 'group ' || (1 + (CAST(i.ZNUMBER / 7 AS INTEGER) - 1) * \(groupCount) / \(rowCount))
            """)
        guard complete == rowCount else { throw BenchmarkError.wrongResultCount(found: Int(complete), expected: rowCount) }
        return time
    }
}
