import CSQLite
import Foundation
import ModelFiles
import ModelFuzzSupport
import SQLiteBackend
import StoreCore

/// libFuzzer entry point: `stowage inspect` on a mutated Core Data SQLite store. The input's first
/// byte picks a seed store (`FuzzSeedStores`: one Stowage writes, plus every SQLite store under
/// `$STOWAGE_FIXTURES/coredata/stores` when that is set); the rest is a list of edits applied to
/// a copy with SQL (`StoreMutation`): cells of `Z_PRIMARYKEY` (entity numbers, names, parents,
/// key counters), `Z_METADATA` and `Z_MODELCACHE` blobs, cells of entity tables, dropped columns
/// and tables, new `Z_PRIMARYKEY` rows. Then the inspector's path runs: the model is inferred
/// from the layout and decoded from the model cache, the store is opened in inspection mode, and
/// every entity is counted and its first rows read, every value and relationship. Each step must
/// return or throw a typed Stowage error; a trap, a crash, an untyped error, a hang (libFuzzer's
/// `-timeout`) or a blow-up (`-rss_limit_mb`) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func coreDataStoreFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let seeds = FuzzSeedStores.shared
    let url = FuzzSeedStores.workFile
    for suffix in ["", "-wal", "-shm", "-journal"] {
        try? FileManager.default.removeItem(atPath: url.path + suffix)
    }
    do {
        try seeds.stores[Int(bytes[0]) % seeds.stores.count].write(to: url)
    } catch {
        preconditionFailure("cannot write the seed: \(error)")
    }
    StoreMutation.apply(bytes.dropFirst(), toStoreAt: url)
    inspect(url)
    return 0
}

/// What `stowage inspect` does with a store, minus the printing.
private func inspect(_ url: URL) {
    var models: [ManagedObjectModel] = []
    typedOnly { models.append(try InferredModel(sqliteStoreAt: url).model) }
    typedOnly {
        if let compressed = try SQLiteModelCache.compressedContent(ofStoreAt: url) {
            let version = try CoreDataModelCache.version(decoding: compressed, storeURL: url)
            exerciseModelVersion(version)
            models.append(version.model)
        }
    }
    for model in models {
        typedOnly {
            let container = PersistentContainer(name: "Inspect", managedObjectModel: model)
            container.persistentStoreDescriptions = [.inspecting(url, type: .sqlite)]
            try container.loadPersistentStores()
            let context = container.newBackgroundContext()
            context.performAndWait {
                for entity in model.entities {
                    typedOnly {
                        _ = try context.count(for: FetchRequest<ManagedObject>(entityName: entity.name))
                        var first = FetchRequest<ManagedObject>(entityName: entity.name)
                        first.fetchLimit = 5
                        for object in try context.fetch(first) {
                            for property in entity.properties {
                                typedOnly { _ = try object.value(forKey: property.name) }
                            }
                        }
                    }
                }
            }
            for store in container.persistentStoreCoordinator.persistentStores {
                try container.persistentStoreCoordinator.removePersistentStore(store)
            }
        }
    }
}

/// Runs `body`; an error must be one of Stowage's typed errors.
private func typedOnly(_ body: () throws -> Void) {
    do {
        try body()
    } catch is any CodedError {
    } catch is MergeConflictError {
    } catch {
        preconditionFailure("an untyped error escaped: \(type(of: error)): \(error)")
    }
}
