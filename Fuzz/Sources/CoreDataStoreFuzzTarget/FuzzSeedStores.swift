import CSQLite
import Foundation
import FuzzDriver
import SQLiteBackend
import StoreCore

/// The stores the fuzzer mutates, as self-contained database images (no `-wal`): one Stowage
/// writes on first use — inheritance, a to-one, a to-many, a many-to-many and an ordered to-many,
/// attributes of every common type, history on — and, when `STOWAGE_FIXTURES` is set, every
/// SQLite store under `coredata/stores` (Apple-written, with their model caches), each copied
/// with `VACUUM INTO` so what its `-wal` held is in the image.
final class FuzzSeedStores: Sendable {
    static let shared = FuzzSeedStores()
    /// Where this process writes each mutated store.
    static let workFile: URL = directory.appendingPathComponent("Store.sqlite")
    private static let directory = fuzzWorkDirectory

    let stores: [Data]

    private init() {
        SQLiteStore.register()
        var stores: [Data] = []
        do {
            stores.append(try Self.writtenByStowage())
        } catch {
            preconditionFailure("cannot write the seed store: \(error)")
        }
        if let fixtures = ProcessInfo.processInfo.environment["STOWAGE_FIXTURES"] {
            let root = URL(fileURLWithPath: fixtures).appendingPathComponent("coredata/stores")
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "sqlite", let image = Self.image(of: file) else { continue }
                stores.append(image)
            }
        }
        self.stores = stores
    }

    private static func writtenByStowage() throws -> Data {
        let url = directory.appendingPathComponent("Seed.sqlite")
        let model = try ManagedObjectModel {
            EntityDescription("Animal", isAbstract: true) {
                .attribute("name", .string)
                .attribute("born", .date)
                .toOne("keeper", destination: "Keeper", inverse: "animals")
                .toMany("friends", destination: "Animal", inverse: "friendOf")
                .toMany("friendOf", destination: "Animal", inverse: "friends")
            }
            EntityDescription("Dog", parent: "Animal") {
                .attribute("weight", .double)
                .attribute("chip", .binaryData)
            }
            EntityDescription("Cat", parent: "Animal") {
                .attribute("lives", .integer16, optional: false, defaultValue: 9)
            }
            EntityDescription("Keeper") {
                .attribute("badge", .integer64)
                .attribute("salary", .decimal)
                .attribute("active", .boolean)
                .attribute("id", .uuid)
                .toMany("animals", destination: "Animal", inverse: "keeper", ordered: true)
            }
        }
        let container = PersistentContainer(name: "Seed", managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let keeper = try context.insertNewObject(forEntityName: "Keeper")
            try keeper.setValue(Int64(7), forKey: "badge")
            try keeper.setValue(true, forKey: "active")
            var animals: [ManagedObject] = []
            for n in 0..<4 {
                let animal = try context.insertNewObject(forEntityName: n % 2 == 0 ? "Dog" : "Cat")
                try animal.setValue("animal \(n)", forKey: "name")
                try animal.setValue(Date(timeIntervalSince1970: Double(n) * 86_400), forKey: "born")
                try animal.setValue(keeper, forKey: "keeper")
                if let previous = animals.last { try animal.add(previous, toRelationship: "friends") }
                animals.append(animal)
            }
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores {
            try container.persistentStoreCoordinator.removePersistentStore(store)
        }
        guard let image = image(of: url) else { throw StoreError(.io, url: url, "the seed store cannot be copied") }
        return image
    }

    /// The database at `url` (with what its `-wal` holds) as one file's bytes: `VACUUM INTO` a copy.
    private static func image(of url: URL) -> Data? {
        let copy = directory.appendingPathComponent("Image.sqlite")
        try? FileManager.default.removeItem(at: copy)
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
              sqlite3_exec(handle, "VACUUM INTO '\(copy.path.replacingOccurrences(of: "'", with: "''"))'", nil, nil, nil) == SQLITE_OK
        else { return nil }
        return try? Data(contentsOf: copy)
    }
}
