// The child process of the crash-safety test (StowageTests/CrashSafetyTests): opens the store
// named on the command line and saves to it in a loop, printing the number of each save once it
// has returned, until it is killed. With `--once` (RemoteChangeTests) it opens the store with
// persistent history, saves once, prints the number and exits. With `--migrate`
// (MigrationCrashSafetyTests) it opens the store with the next model version, which migrates it,
// prints "migrated" and exits; `--migrate-mapping` does the same with a mapping model (the
// migration manager and a renamed-over file).
//
//     stowage-save-loop xml /tmp/x/Store.xml
//     stowage-save-loop sqlite /tmp/x/Store.sqlite --once
//     stowage-save-loop sqlite /tmp/x/Store.sqlite --migrate
//
// With `--batch` (CrashSafetyTests) it opens a SQLite store with persistent history and runs batch
// inserts in a loop — batch k inserts entries k * 1000 + 0…499 — printing k once each returns.
//
//     stowage-save-loop sqlite /tmp/x/Store.sqlite --batch
//
// With `--increments N` (PostgresConcurrencyTests) it opens a server's store named by URL, and N
// times inserts an entry and adds one to the store's one counter, each in its own save, retrying
// an increment that meets another process's change; then prints "done" and exits. A fifth
// argument names another merge policy for the context (objectTrump, storeTrump, overwrite,
// rollback): conflicts are then resolved by the policy, and nothing is retried.
//
//     stowage-save-loop postgres 'postgres://me@localhost/db?schema=s' --increments 50
//     stowage-save-loop sqlite file:///tmp/x/Store.sqlite --increments 50 objectTrump
import Foundation
import Stowage
import StoreTestSupport

let arguments = CommandLine.arguments
let policies: [String: MergePolicy] = [
    "objectTrump": .mergeByPropertyObjectTrump, "storeTrump": .mergeByPropertyStoreTrump,
    "overwrite": .overwrite, "rollback": .rollback,
]
if arguments.count == 5 || arguments.count == 6, arguments[3] == "--increments", let increments = Int(arguments[4]),
   let url = URL(string: arguments[2]), arguments.count == 5 || policies[arguments[5]] != nil {
    do {
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: try SaveLoopStore.makeModel())
        var description = PersistentStoreDescription(type: PersistentStoreType(rawValue: arguments[1]), url: url)
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        if arguments.count == 6, let policy = policies[arguments[5]] { context.mergePolicy = policy }
        try context.performAndWait {
            let pid = Int64(ProcessInfo.processInfo.processIdentifier)
            for n in 0..<Int64(increments) {
                let entry = try context.insertNewObject(forEntityName: "Entry")
                try entry.setValue(pid * 1_000_000 + n, forKey: "number")
                while true {
                    guard let counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first else {
                        throw StoreError(.corrupt, "the store has no counter")
                    }
                    try counter.setValue((try counter.value(forKey: "value") as? Int64 ?? 0) + 1, forKey: "value")
                    do {
                        try context.save()
                        break
                    } catch is MergeConflictError {
                        context.refresh(counter, mergeChanges: false)
                    }
                }
            }
        }
        FileHandle.standardOutput.write(Data("done\n".utf8))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("stowage-save-loop: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count == 4, arguments[3] == "--batch" {
    do {
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: try SaveLoopStore.makeModel())
        var description = PersistentStoreDescription(type: PersistentStoreType(rawValue: arguments[1]), url: URL(fileURLWithPath: arguments[2]))
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        var k = try SaveLoopStore.batches(in: context).count
        while true {
            k += 1
            let rows: [[String: Any]] = (0..<Int64(SaveLoopStore.batchSize)).map { i in
                let number = Int64(k) * 1_000 + i
                return ["number": number, "payload": SaveLoopStore.payload(number)]
            }
            _ = try context.performAndWait { try context.execute(BatchInsertRequest(entityName: "Entry", objects: rows)) }
            FileHandle.standardOutput.write(Data("\(k)\n".utf8))
        }
    } catch {
        FileHandle.standardError.write(Data("stowage-save-loop: \(error)\n".utf8))
        exit(1)
    }
}
let once = arguments.count == 4 && arguments[3] == "--once"
// `--history`: the save loop with persistent history on (CrashSafetyTests on SQLite).
let withHistory = arguments.count == 4 && arguments[3] == "--history"
let migrateWithMapping = arguments.count == 4 && arguments[3] == "--migrate-mapping"
let migrate = arguments.count == 4 && arguments[3] == "--migrate" || migrateWithMapping
guard arguments.count == 3 || once || migrate || withHistory else {
    FileHandle.standardError.write(Data("usage: stowage-save-loop <store type> <store file> [--once | --history | --batch | --migrate | --migrate-mapping]\n".utf8))
    exit(2)
}
JSONStoreFormat.register()
let type = PersistentStoreType(rawValue: arguments[1])
let url = URL(fileURLWithPath: arguments[2])

if migrate {
    do {
        let model = try migrateWithMapping ? SaveLoopStore.makeMappedMigrationModel() : SaveLoopStore.makeMigratedModel()
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: type, url: url)]
        try container.loadPersistentStores()
        FileHandle.standardOutput.write(Data("migrated\n".utf8))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("stowage-save-loop: \(error)\n".utf8))
        exit(1)
    }
}

do {
    let container = PersistentContainer(name: "SaveLoop", managedObjectModel: try SaveLoopStore.makeModel())
    var description = PersistentStoreDescription(type: type, url: url)
    description.isHistoryTrackingEnabled = once || withHistory
    container.persistentStoreDescriptions = [description]
    try container.loadPersistentStores()
    let context = container.newBackgroundContext()
    try context.performAndWait {
        let counter: ManagedObject
        if let existing = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first {
            counter = existing
        } else {
            counter = try context.insertNewObject(forEntityName: "Counter")
            for number in (0..<Int64(SaveLoopStore.fillerCount)).map({ -1 - $0 }) {
                let entry = try context.insertNewObject(forEntityName: "Entry")
                try entry.setValue(number, forKey: "number")
                try entry.setValue(SaveLoopStore.payload(number), forKey: "payload")
            }
            try context.save()
        }
        var k = try counter.value(forKey: "value") as? Int64 ?? 0
        while true {
            k += 1
            let entry = try context.insertNewObject(forEntityName: "Entry")
            try entry.setValue(k, forKey: "number")
            try entry.setValue(SaveLoopStore.payload(k), forKey: "payload")
            try counter.setValue(k, forKey: "value")
            try context.save()
            FileHandle.standardOutput.write(Data("\(k)\n".utf8))
            if once { exit(0) }
        }
    }
} catch {
    FileHandle.standardError.write(Data("stowage-save-loop: \(error)\n".utf8))
    exit(1)
}
