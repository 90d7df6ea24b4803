import Foundation
import StoreCore
import StoreSQL

/// Opens a database as a store: creates Core Data's tables in an empty file, or reads the
/// entity numbers and metadata of an existing one and checks that the model fits it.
///
/// A store matches the model when its recorded version hashes equal the model's (Stowage's, or
/// Core Data's for a store Apple's Core Data wrote with this model), or otherwise when every
/// entity of the model has its `Z_PRIMARYKEY` row and every stored property its column.
struct SQLiteStoreOpener {
    let pool: SQLiteConnectionPool
    let model: ManagedObjectModel
    let url: URL
    let readOnly: Bool

    func open() throws -> SQLOpenedStore {
        try pool.write { connection in
            let exists = try connection.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'Z_METADATA'") == .integer(1)
            if !exists { return try create(on: connection) }
            let numbers = try entityNumbers(on: connection)
            let schema = SQLSchema(model: model, entityNumbers: numbers)
            try checkEveryEntityIsNumbered(schema, numbers: numbers, on: connection)
            let metadata = try Self.readMetadata(on: connection, url: url)
            // Stowage's own hashes, or Core Data's (a store Apple's Core Data wrote with this
            // model), identify the model; otherwise the store's layout must fit it.
            if metadata.modelVersionHashes != model.entityVersionHashesByName,
                metadata.modelVersionHashes != model.coreDataEntityVersionHashesByName
            {
                try checkLayout(schema, numbers: numbers, on: connection)
            }
            if !readOnly { try addMissingDerivedAttributeTriggers(schema, on: connection) }
            return SQLOpenedStore(schema: schema, metadata: metadata)
        }
    }

    private func create(on connection: SQLiteConnection) throws -> SQLOpenedStore {
        if readOnly {
            throw StoreError(.io, url: url, "there is no store here to open read-only")
        }
        let tableCount = try connection.scalar("SELECT COUNT(*) FROM sqlite_master")
        guard tableCount == .integer(0) else {
            throw StoreError(.incompatibleModel, url: url, "the database has tables but no Z_METADATA, so it is not a Core Data store; it was left untouched")
        }
        let schema = SQLSchema(model: model)
        let compiler = SQLCompiler(schema: schema, model: model)
        let statements = try schema.createStatements(model: model) { table, format in
            try compiler.indexPredicate(format, on: table)
        } + schema.derivedAttributeTriggers(model: model).map(\.sql)
        // Core Data makes its stores with incremental auto-vacuum and records the mode as
        // `_NSAutoVacuumLevel`; the mode can only be chosen before the first table exists.
        if !pool.setsAutoVacuum { try connection.execute("PRAGMA auto_vacuum = 2") }
        let autoVacuum = try connection.scalar("PRAGMA auto_vacuum")
        // Core Data's hashes, so that Core Data on Apple platforms opens the store without migrating it.
        var metadata = StoreMetadata(storeType: PersistentStoreType.sqlite.rawValue, modelVersionHashes: model.coreDataEntityVersionHashesByName)
        if case .integer(let level)? = autoVacuum { metadata.userInfo["_NSAutoVacuumLevel"] = .string(String(level)) }
        try connection.transaction {
            for statement in statements { try connection.execute(statement) }
            try Self.writeMetadata(metadata, on: connection, modelVersionIdentifiers: model.versionIdentifiers)
            try SQLiteModelCache.write(model, on: connection, url: url)
        }
        return SQLOpenedStore(schema: schema, metadata: metadata)
    }

    /// Creates the triggers of derived attributes that have none — neither ours nor Core Data's
    /// (an Apple-written store brings its own, which compute the same values) — so a store made
    /// before the model derived an attribute computes it from now on.
    private func addMissingDerivedAttributeTriggers(_ schema: SQLSchema, on connection: SQLiteConnection) throws {
        let triggers = schema.derivedAttributeTriggers(model: model)
        guard !triggers.isEmpty else { return }
        var existing: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z_DA_%'") { row in
            if let name = row.string(at: 0) { existing.append(name) }
        }
        let missing = triggers.filter { trigger in !existing.contains { $0.contains(trigger.attributeMarker + "_") } }
        guard !missing.isEmpty else { return }
        try connection.transaction {
            for trigger in missing { try connection.execute(trigger.sql) }
        }
    }

    /// Each model entity's number in `Z_PRIMARYKEY`: by its name, or — for an entity renamed
    /// since the store was made, whose row Core Data leaves under the old name — by its
    /// renaming identifier (`elementID`), as Core Data maps it.
    private func entityNumbers(on connection: SQLiteConnection) throws -> [String: Int64] {
        var stored: [String: Int64] = [:]
        for row in try PrimaryKeyTable.read(on: connection, url: url) { stored[row.name] = row.number }
        let modelNames = Set(model.entities.map(\.name))
        var numbers: [String: Int64] = [:]
        for entity in model.entities {
            if let number = stored[entity.name] {
                numbers[entity.name] = number
            } else if let oldName = entity.renamingIdentifier, !modelNames.contains(oldName), let number = stored[oldName] {
                numbers[entity.name] = number
            }
        }
        return numbers
    }

    /// Refuses a store in which some entity of the model has no number, or a renamed root
    /// entity no table, whatever its metadata says: a fetch would otherwise return part of the
    /// rows (a sub-entity's rows are found by number) or fail later naming an unknown entity.
    private func checkEveryEntityIsNumbered(_ schema: SQLSchema, numbers: [String: Int64], on connection: SQLiteConnection) throws {
        var problems: [String] = []
        for entity in model.entities where numbers[entity.name] == nil {
            let renamed = entity.renamingIdentifier.map { " (nor under its renaming identifier \($0))" } ?? ""
            problems.append("entity \(entity.name) has no row in Z_PRIMARYKEY\(renamed)")
        }
        for table in schema.rootTables {
            let present = try connection.scalar("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table.name)])
            if present != .integer(1) { problems.append("table \(table.name) of entity \(table.rootEntity) is missing") }
        }
        guard problems.isEmpty else {
            throw StoreError(.incompatibleModel, url: url, "the store does not fit the model: " + problems.joined(separator: "; ") + "; it was left untouched")
        }
    }

    /// Every entity numbered, every table and column present.
    private func checkLayout(_ schema: SQLSchema, numbers: [String: Int64], on connection: SQLiteConnection) throws {
        var problems: [String] = []
        for table in schema.rootTables {
            var columns: Set<String> = []
            try connection.query("SELECT name FROM pragma_table_info(?)", [.text(table.name)]) { row in
                if let name = row.string(at: 0) { columns.insert(name) }
            }
            if columns.isEmpty {
                problems.append("table \(table.name) is missing")
                continue
            }
            for column in table.columns where !columns.contains(column.name) {
                problems.append("\(table.name) has no column \(column.name)")
            }
        }
        for join in schema.joinTables {
            let present = try connection.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = ?", [.text(join.name)])
            if present != .integer(1) { problems.append("join table \(join.name) is missing") }
        }
        guard problems.isEmpty else {
            throw StoreError(.incompatibleModel, url: url, "the store was saved with a different model: " + problems.joined(separator: "; "))
        }
    }

    // MARK: Metadata

    static func readMetadata(on connection: SQLiteConnection, url: URL) throws -> StoreMetadata {
        var uuid: String?
        var plist: Data?
        try connection.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") { row in
            uuid = row.string(at: 0)
            plist = row.data(at: 1)
        }
        guard let uuid else { throw StoreError(.corrupt, url: url, "Z_METADATA has no row; the store's identity is unknown") }
        do {
            return try StoreMetadataCoder.decode(plist ?? Data(), storeUUID: uuid)
        } catch {
            throw StoreError(.corrupt, url: url, "the store's metadata cannot be read: \(error)", underlying: error)
        }
    }

    /// Writes `metadata` over the stored one, keeping the keys Stowage does not model;
    /// `modelVersionIdentifiers` (a new store's model's) replaces the recorded identifiers.
    static func writeMetadata(_ metadata: StoreMetadata, on connection: SQLiteConnection, modelVersionIdentifiers: Set<String>? = nil) throws {
        let existing = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        var preserved: Data?
        if case .blob(let data) = existing { preserved = data }
        let plist = StoreMetadataCoder.encode(metadata, preserving: preserved, modelVersionIdentifiers: modelVersionIdentifiers)
        try connection.run(
            "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", [.text(metadata.storeUUID), .blob(plist)])
    }
}
