import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

/// The model the sync tests use: notes in folders (one-to-many), tagged (many-to-many), settings
/// with no relationship (their new objects travel as rows written with a save), and the engine's
/// bookkeeping entities.
enum SyncTestModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toMany("notes", destination: "Note", inverse: "folder", deleteRule: .cascade)
            }
            EntityDescription("Note") {
                .attribute("title", .string)
                .attribute("body", .string)
                .attribute("rank", .integer64, defaultValue: 0)
                .attribute("draft", .string, transient: true)
                .toOne("folder", destination: "Folder", inverse: "notes")
                .toMany("tags", destination: "Tag", inverse: "notes")
            }
            EntityDescription("Tag") {
                .attribute("label", .string)
                .toMany("notes", destination: "Note", inverse: "tags")
            }
            EntityDescription("Setting") {
                .attribute("key", .string)
                .attribute("value", .string)
                .attribute("level", .integer64, optional: false, defaultValue: .integer(1))
            }
            SyncEngine.modelEntities()
        }
    }
}

/// A store for a sync test: a container on a temporary file with history on.
final class SyncTestStore {
    let container: PersistentContainer
    let model: ManagedObjectModel

    convenience init(_ backend: StoreBackend, in directory: ScratchDirectory, name: String, model: ManagedObjectModel, postsRemoteChanges: Bool = false) throws {
        backend.register()
        let description = PersistentStoreDescription(type: backend.type, url: backend.fileExtension.map { directory.file("\(name).\($0)") })
        try self.init(description, name: name, model: model, postsRemoteChanges: postsRemoteChanges)
    }

    init(_ described: PersistentStoreDescription, name: String, model: ManagedObjectModel, postsRemoteChanges: Bool = false) throws {
        self.model = model
        container = PersistentContainer(name: name, managedObjectModel: model)
        var description = described
        description.isHistoryTrackingEnabled = true
        if postsRemoteChanges { description.setOption(true, forKey: .remoteChangeNotificationPost) }
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
    }

    /// Runs `body` in a new background context and saves it.
    @discardableResult
    func edit<T>(_ body: (ManagedObjectContext) throws -> T) throws -> T {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let result = try body(context)
            try context.save()
            return result
        }
    }

    /// Every synced object as global identity → its values (relationships as global identities).
    func contents() throws -> [String: String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let globalIDs = try SyncEngine.globalIdentities(in: context)
            var result: [String: String] = [:]
            for entityName in ["Folder", "Note", "Tag", "Setting"] {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entityName)) {
                    let name = globalIDs[object.objectID] ?? "unsynced-\(object.objectID)"
                    var fields: [String] = [entityName]
                    for property in object.entity.properties.sorted(by: { $0.name < $1.name }) where !property.isTransient {
                        let value = try object.value(forKey: property.name)
                        let text: String = switch value {
                        case let member as ManagedObject: globalIDs[member.objectID] ?? "?"
                        case let set as Set<ManagedObject>: set.map { globalIDs[$0.objectID] ?? "?" }.sorted().joined(separator: ",")
                        case nil: "nil"
                        case let some?: "\(some)"
                        }
                        fields.append("\(property.name)=\(text)")
                    }
                    result[name] = fields.joined(separator: " ")
                }
            }
            return result
        }
    }
}

extension ManagedObjectContext {
    func all(_ entityName: String, _ format: String? = nil, _ arguments: Any...) throws -> [ManagedObject] {
        let predicate = try format.map { try StorePredicate(format: $0, argumentArray: arguments) }
        return try fetch(FetchRequest<ManagedObject>(entityName: entityName, predicate: predicate))
    }
}

#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import PostgresBackend

extension SyncTestStore {
    /// A store in a schema of its own on the server in `STOWAGE_POSTGRES_URL`, or nil without one.
    static func postgres(name: String, model: ManagedObjectModel, postsRemoteChanges: Bool = false) throws -> SyncTestStore? {
        guard let url = PostgresTestCluster.url else { return nil }
        PostgresStore.register()
        var description = PersistentStoreDescription(url: url)
        let schema = "sync_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        description.setOption(.string(schema), forKey: .postgresSchema)
        return try SyncTestStore(description, name: name, model: model, postsRemoteChanges: postsRemoteChanges)
    }
}
#endif

extension SyncEngine {
    /// Syncs, trying again while a store fails (`storeFailed`: a server restarting), up to
    /// `attempts` times a quarter of a second apart. Any other error is thrown at once.
    func syncRetrying(attempts: Int = 40) async throws {
        for attempt in 1... {
            do {
                try await sync()
                return
            } catch SyncError.Code.storeFailed where attempt < attempts {
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }
}

/// A test case with a scratch directory and the test model, made fresh for every test.
class SyncTestCase: XCTestCase {
    var directory: ScratchDirectory!
    var model: ManagedObjectModel!

    override func setUpWithError() throws {
        directory = try ScratchDirectory()
        model = try SyncTestModel.make()
    }

    /// A store named `name` in the scratch directory, with the test model.
    func store(_ name: String, _ backend: StoreBackend = .sqlite) throws -> SyncTestStore {
        try SyncTestStore(backend, in: directory, name: name, model: model)
    }
}
