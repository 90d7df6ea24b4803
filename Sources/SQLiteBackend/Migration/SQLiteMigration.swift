import Foundation
import StoreCore
import StoreSQL

/// One in-place migration of a SQLite store, run inside the migrator's transaction.
///
/// The source model's layout is read with the entity numbers the store recorded; the
/// destination's keeps the number of every entity carried over (so `Z_ENT` values, hidden
/// columns and join tables named after numbers, and history stay as they are) and numbers new
/// entities after the highest. A table whose rows need not move (a column added with no value,
/// renamed or dropped) is changed with `ALTER TABLE`; the other entity tables and the join tables
/// are renamed `Z_OLD_<name>`, the destination's tables created, filled by `INSERT … SELECT`, and
/// the old ones dropped; then the destination's indexes, R-trees and triggers are created and the
/// bookkeeping rewritten.
struct SQLiteMigration {
    let request: StoreMigrationRequest
    let connection: SQLiteConnection

    var sourceModel: ManagedObjectModel { request.sourceModel }
    var destinationModel: ManagedObjectModel { request.destinationModel }
    var mapping: MappingModel { request.mapping }

    func run() throws {
        let stored = try storedEntities()
        var sourceNumbers: [String: Int64] = [:]
        for entity in sourceModel.entities {
            guard let row = stored[entity.name] else {
                throw MigrationError(.migrationFailed, entity: entity.name, "the store has no Z_PRIMARYKEY row for \(entity.name), so it was not written with the source model")
            }
            sourceNumbers[entity.name] = row.number
        }
        let source = SQLSchema(model: sourceModel, entityNumbers: sourceNumbers)
        let destination = SQLSchema(
            model: destinationModel, entityNumbers: SQLSchema.migrationEntityNumbers(destinationModel: destinationModel, mapping: mapping, stored: stored))
        let keys = try KeyOffsets(
            source: source, destination: destination, mapping: mapping, sourceModel: sourceModel, destinationModel: destinationModel,
            stored: stored
        ) { table in
            if case .integer(let key)? = try connection.scalar("SELECT MAX(Z_PK) FROM \(table)") { return key }
            return nil
        }
        var copier = RowCopier(request: request, source: source, destination: destination, keys: keys, convertFunction: SQLiteFunctions.convertName)
        var alterations: [String] = []
        for root in destination.rootTables {
            guard let changes = try copier.inPlaceChanges(of: root) else { continue }
            copier.inPlaceTables.insert(root.name)
            alterations += changes
        }

        let compiler = SQLCompiler(schema: destination, model: destinationModel)
        let statements = try destination.createStatements(model: destinationModel) { table, format in
            try compiler.indexPredicate(format, on: table)
        }
        let isBookkeeping = { (sql: String) in sql.hasPrefix("CREATE TABLE Z_PRIMARYKEY") || sql.hasPrefix("CREATE TABLE Z_METADATA") || sql.hasPrefix("INSERT INTO Z_PRIMARYKEY") }
        let keptTable = { (sql: String) in copier.inPlaceTables.contains { sql.hasPrefix("CREATE TABLE \($0) (") } }
        let tables = statements.filter { $0.hasPrefix("CREATE TABLE ") && !isBookkeeping($0) && !keptTable($0) }
        let others = statements.filter { !$0.hasPrefix("CREATE TABLE ") && !isBookkeeping($0) }

        try dropTriggersAndRTrees(of: source)
        try dropIndexes(of: copier.inPlaceTables)
        let oldTables = source.rootTables.map(\.name).filter { !copier.inPlaceTables.contains($0) } + source.joinTables.map(\.name)
        for table in oldTables { try connection.execute("ALTER TABLE \(table) RENAME TO \(RowCopier.old(table))") }
        for sql in tables { try connection.execute(sql) }
        let copies = try copier.statements()
        for (done, (sql, values)) in copies.enumerated() {
            try connection.run(sql, values)
            request.progress?(Double(done + 1) / Double(copies.count + 1))
        }
        for sql in alterations { try connection.execute(sql) }
        for table in oldTables { try connection.execute("DROP TABLE \(RowCopier.old(table))") }
        for sql in copier.cleanupStatements() { try connection.execute(sql) }
        for sql in others { try connection.execute(sql) }
        try fillRTrees(of: destination)
        for trigger in destination.derivedAttributeTriggers(model: destinationModel) { try connection.execute(trigger.sql) }
        try destination.rewritePrimaryKeys(destinationModel: destinationModel, mapping: mapping, stored: stored, keys: keys, on: connection)
        try rewriteMetadata()
    }

    private func storedEntities() throws -> [String: StoredEntity] {
        var stored: [String: StoredEntity] = [:]
        try connection.query("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY") { row in
            if let name = row.string(at: 1) { stored[name] = StoredEntity(number: row.int64(at: 0), max: row.int64(at: 2)) }
        }
        return stored
    }

    /// Triggers on the old entity tables (derived attributes, R-trees; an Apple-written store's
    /// own) and the R-tree tables go; the destination's are created afresh.
    private func dropTriggersAndRTrees(of source: SQLSchema) throws {
        let tables = Set(source.rootTables.map(\.name))
        var triggers: [String] = []
        try connection.query("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'") { row in
            if let name = row.string(at: 0), let table = row.string(at: 1), tables.contains(table) { triggers.append(name) }
        }
        for trigger in triggers { try connection.execute("DROP TRIGGER \(Self.quoted(trigger))") }
        for index in source.rTreeIndexes.values.flatMap(\.values) {
            try connection.execute("DROP TABLE IF EXISTS \(Self.quoted(index.tableName))")
        }
    }

    /// The indexes of tables changed in place go; the destination's are created afresh.
    private func dropIndexes(of tables: Set<String>) throws {
        var indexes: [String] = []
        try connection.query("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") { row in
            if let name = row.string(at: 0), let table = row.string(at: 1), tables.contains(table) { indexes.append(name) }
        }
        for index in indexes { try connection.execute("DROP INDEX \(Self.quoted(index))") }
    }

    /// Fills each R-tree from its entity's rows (its triggers only see later changes).
    private func fillRTrees(of destination: SQLSchema) throws {
        for index in destination.rTreeIndexes.values.flatMap(\.values) {
            let table = index.entity
            let bounds = index.columns.flatMap { ["\($0)_MIN", "\($0)_MAX"] }
            let values = index.columns.flatMap { [$0, $0] }
            var conditions = index.columns.map { "\($0) IS NOT NULL" }
            if table.sharesTable { conditions.append("Z_ENT IN (\(table.entityNumbers.map(String.init).joined(separator: ", ")))") }
            try connection.execute("""
                INSERT INTO \(Self.quoted(index.tableName)) (Z_PK, \(bounds.joined(separator: ", "))) \
                SELECT Z_PK, \(values.joined(separator: ", ")) FROM \(table.table) WHERE \(conditions.joined(separator: " AND "))
                """)
        }
    }

    /// The destination's version hashes and identifiers (everything else the metadata holds is
    /// kept) and, as Core Data does after a migration, the destination model in `Z_MODELCACHE`.
    private func rewriteMetadata() throws {
        var metadata = try SQLiteStoreOpener.readMetadata(on: connection, url: request.url)
        metadata.modelVersionHashes = destinationModel.coreDataEntityVersionHashesByName
        try SQLiteStoreOpener.writeMetadata(metadata, on: connection, modelVersionIdentifiers: destinationModel.versionIdentifiers)
        try SQLiteModelCache.write(destinationModel, on: connection, url: request.url)
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
