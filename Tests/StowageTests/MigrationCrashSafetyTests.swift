import Foundation
import StoreCore
@testable import SQLiteBackend
import StoreTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A child process migrates a store (renamed, converted and added attributes) and is killed
/// with SIGKILL at a random moment, again and again; after every kill the store must be exactly
/// the old one or exactly the migrated one — never a mix — with every object, and a SQLite file
/// must pass `integrity_check`.
final class MigrationCrashSafetyTests: XCTestCase {
    private let killsPerType = 16
    private let entryCount = 6_000

    func testKillingAMigratingProcessLeavesTheOldOrTheMigratedStore() throws {
        try killRepeatedly(mode: "--migrate", backends: [.sqlite, .xml, .binary])
    }

    /// The same with a mapping model: the migration manager builds a new store beside the old one
    /// and renames it over.
    func testKillingAProcessMigratingWithAMappingModelLeavesTheOldOrTheMigratedStore() throws {
        try killRepeatedly(mode: "--migrate-mapping", backends: [.sqlite, .xml])
    }

    private func killRepeatedly(mode: String, backends: [StoreBackend]) throws {
        _ = try builtTool("stowage-save-loop")  // skips when it is not built
        for backend in backends {
            backend.register()
            let directory = try TemporaryDirectory()
            let pristine = directory.file("Pristine.\(backend.fileExtension ?? "store")")
            try makeStore(backend, at: pristine)
            let url = directory.file("Migrating.\(backend.fileExtension ?? "store")")

            // How long one whole migration takes, to spread the kills over it.
            try copy(pristine, to: url)
            let started = Date()
            let (status, _) = try runMigration(backend, url: url, mode: mode, killAfter: nil)
            XCTAssertEqual(status, 0, "\(backend): the migration succeeds when left alone")
            let duration = Date().timeIntervalSince(started)
            XCTAssertEqual(try state(of: url, backend), .migrated, "\(backend)")

            var generator = SeededGenerator(state: 7)
            var outcomes: [Outcome: Int] = [:]
            for kill in 0..<killsPerType {
                try copy(pristine, to: url)
                _ = try runMigration(backend, url: url, mode: mode, killAfter: Double.random(in: 0...(duration * 1.1), using: &generator))
                let outcome = try state(of: url, backend)
                XCTAssertNotEqual(outcome, .broken, "\(backend), kill \(kill)")
                outcomes[outcome, default: 0] += 1
            }
            XCTAssertEqual(outcomes[.broken] ?? 0, 0, "\(backend): \(outcomes)")
            // Whatever a kill left beside the store (a hidden half-made migration) is not the store.
            try? FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("-migrating-") }
                .forEach { try? FileManager.default.removeItem(at: directory.url.appendingPathComponent($0)) }
        }
    }

    private enum Outcome: Hashable { case old, migrated, broken }

    private func makeStore(_ backend: StoreBackend, at url: URL) throws {
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: try SaveLoopStore.makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: backend.type, url: url)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for number in 0..<Int64(entryCount) {
                let entry = try context.insertNewObject(forEntityName: "Entry")
                try entry.setValue(number, forKey: "number")
                try entry.setValue(SaveLoopStore.payload(number), forKey: "payload")
            }
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
    }

    private func copy(_ source: URL, to destination: URL) throws {
        for suffix in ["", "-wal", "-shm"] {
            let from = URL(fileURLWithPath: source.path + suffix), to = URL(fileURLWithPath: destination.path + suffix)
            try? FileManager.default.removeItem(at: to)
            if FileManager.default.fileExists(atPath: from.path) { try FileManager.default.copyItem(at: from, to: to) }
        }
    }

    /// Runs the child's migration, killing it after `killAfter` seconds (or letting it finish).
    private func runMigration(_ backend: StoreBackend, url: URL, mode: String, killAfter: Double?) throws -> (status: Int32, output: String) {
        let child = Process()
        child.executableURL = try builtTool("stowage-save-loop")
        child.arguments = [backend.type.rawValue, url.path, mode]
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        if let killAfter {
            Thread.sleep(forTimeInterval: killAfter)
            kill(child.processIdentifier, SIGKILL)
        }
        child.waitUntilExit()
        return (child.terminationStatus, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// Which model the store's metadata names, checked against what the store holds.
    private func state(of url: URL, _ backend: StoreBackend) throws -> Outcome {
        if backend.type == .sqlite {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
            guard try connection.scalar("PRAGMA integrity_check") == .text("ok") else { return .broken }
        }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: backend.type, at: url)
        let old = try SaveLoopStore.makeModel(), migrated = try SaveLoopStore.makeMigratedModel()
        let isOld = old.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        let isMigrated = migrated.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        guard isOld != isMigrated else { return .broken }
        let model = isOld ? old : migrated
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: model)
        var description = PersistentStoreDescription(type: backend.type, url: url)
        description.isReadOnly = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let complete = try context.performAndWait { () throws -> Bool in
            let entries = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
            guard entries.count == entryCount else { return false }
            return try entries.allSatisfy { entry in
                if isOld {
                    guard let number = try entry.value(forKey: "number") as? Int64 else { return false }
                    return try entry.value(forKey: "payload") as? String == SaveLoopStore.payload(number)
                }
                guard let number = try entry.value(forKey: "number") as? Double else { return false }
                return try entry.value(forKey: "text") as? String == SaveLoopStore.payload(Int64(number))
                    && entry.value(forKey: "flag") as? Bool == true
            }
        }
        return complete ? (isOld ? .old : .migrated) : .broken
    }
}
