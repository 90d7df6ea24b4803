import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// Backups of a SQLite store that is open and being saved to:
/// `replacePersistentStore(at: backup, withPersistentStoreFrom: live)` copies it with SQLite's
/// online backup API, and the copy holds one committed state — every save up to some point,
/// none after — with its externally stored values.
final class SQLiteBackupTests: XCTestCase {
    /// Entries numbered 1…n and a counter at n, each save adding one entry and moving the counter
    /// (and replacing its externally stored payload, whose old file the save removes).
    private static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Entry") {
                .attribute("number", .integer64)
                .attribute("payload", .binaryData, allowsExternalBinaryDataStorage: true)
            }
            EntityDescription("Counter") {
                .attribute("value", .integer64)
                .attribute("payload", .binaryData, allowsExternalBinaryDataStorage: true)
            }
        }
    }

    /// Bytes only save `number` writes, above the external-storage threshold.
    private static func payload(_ number: Int64) -> Data {
        Data((0..<300).map { UInt8(truncatingIfNeeded: Int64($0) &* 7 &+ number) }) + Data(String(number).utf8)
    }

    private func makeStore(in directory: TemporaryDirectory) throws -> (PersistentContainer, URL) {
        let url = directory.file("Live.sqlite")
        let container = try TestStack.sqliteContainer(try Self.makeModel(), at: url) {
            $0.setOption(.integer(64), forKey: .sqliteExternalStorageThreshold)
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let counter = try context.insertNewObject(forEntityName: "Counter")
            try counter.setValue(Int64(0), forKey: "value")
            try counter.setValue(Self.payload(0), forKey: "payload")
            try context.save()
        }
        return (container, url)
    }

    /// One save: entry `counter + 1`, and the counter moved to it.
    private static func saveNext(_ context: ManagedObjectContext) throws -> Int64 {
        try context.performAndWait {
            let counter = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first)
            let next = (try counter.value(forKey: "value") as? Int64 ?? 0) + 1
            let entry = try context.insertNewObject(forEntityName: "Entry")
            try entry.setValue(next, forKey: "number")
            try entry.setValue(payload(next), forKey: "payload")
            try counter.setValue(next, forKey: "value")
            try counter.setValue(payload(next), forKey: "payload")
            try context.save()
            return next
        }
    }

    /// Opens the backup and checks it: `PRAGMA integrity_check`, and a prefix of the saves —
    /// the counter at n, entries 1…n, every payload (files included) as its save wrote it.
    /// Returns n.
    @discardableResult
    private func assertConsistentPrefix(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Int64 {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        XCTAssertEqual(try connection.scalar("PRAGMA integrity_check"), .text("ok"), file: file, line: line)
        let container = try TestStack.sqliteContainer(try Self.makeModel(), at: url)
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let counter = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first, file: file, line: line)
            let value = try XCTUnwrap(try counter.value(forKey: "value") as? Int64, file: file, line: line)
            XCTAssertEqual(try counter.value(forKey: "payload") as? Data, Self.payload(value), "the counter's file is the one its row names", file: file, line: line)
            let entries = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
            let numbers = try entries.map { try XCTUnwrap(try $0.value(forKey: "number") as? Int64) }
            XCTAssertEqual(numbers.sorted(), Array(stride(from: Int64(1), through: value, by: 1)), "entries 1…\(value), none missing, none after", file: file, line: line)
            for (entry, number) in zip(entries, numbers) {
                XCTAssertEqual(try entry.value(forKey: "payload") as? Data, Self.payload(number), "entry \(number)'s payload", file: file, line: line)
            }
            return value
        }
    }

    /// A save between two steps of the copy neither shows in the copy nor takes away the file
    /// of the counter's payload the copied state refers to (the save replaces it and removes
    /// the old file; that removal waits for the copy). Fails without the wait: the copy's
    /// counter names a file that is gone.
    func testASaveDuringTheCopyIsNotInTheBackupAndLeavesItsFilesWhole() throws {
        let directory = try TemporaryDirectory()
        let (container, url) = try makeStore(in: directory)
        let context = container.newBackgroundContext()
        for _ in 0..<5 { _ = try Self.saveNext(context) }
        let saved = LockedBox<[Int64]>([])
        let backup = directory.file("Backup.sqlite")
        try SQLiteStoreFiles.$pagesPerStep.withValue(1) {
            try SQLiteStoreFiles.$afterEachStep.withValue({
                if saved.value.count < 3 { saved.value.append(try Self.saveNext(context)) }
            }) {
                try container.persistentStoreCoordinator.replacePersistentStore(at: backup, withPersistentStoreFrom: url, type: .sqlite)
            }
        }
        XCTAssertEqual(saved.value, [6, 7, 8], "the saves went on between the copy's steps")
        XCTAssertEqual(try assertConsistentPrefix(backup), 5, "the copy holds the state when it began")
        XCTAssertEqual(try assertConsistentPrefix(url), 8, "the live store kept every save")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".replacing") }
        XCTAssertEqual(leftovers, [], "the staging folder is gone")
    }

    /// The brief's scenario: one context saves in a loop on its own thread while backups are
    /// taken from the same store; each backup opens, passes `PRAGMA integrity_check` and holds a
    /// prefix of the saves.
    func testBackupsTakenWhileAnotherContextSavesInALoopHoldAPrefixOfTheSaves() throws {
        let directory = try TemporaryDirectory()
        let (container, url) = try makeStore(in: directory)
        let stop = LockedBox(false)
        let failure = LockedBox<(any Error)?>(nil)
        let last = LockedBox<Int64>(0)
        let done = DispatchSemaphore(value: 0)
        let saver = container.newBackgroundContext()
        Thread.detachNewThread {
            defer { done.signal() }
            do {
                while !stop.value { last.value = try Self.saveNext(saver) }
            } catch {
                failure.value = error
            }
        }
        var seen: [Int64] = []
        for round in 0..<4 {
            while last.value < Int64(5 * (round + 1)) && failure.value == nil { usleep(1000) }
            let backup = directory.file("Backup\(round).sqlite")
            try SQLiteStoreFiles.$pagesPerStep.withValue(2) {
                try container.persistentStoreCoordinator.replacePersistentStore(at: backup, withPersistentStoreFrom: url, type: .sqlite)
            }
            seen.append(try assertConsistentPrefix(backup))
        }
        stop.value = true
        done.wait()
        XCTAssertNil(failure.value, "the saves never failed")
        XCTAssertEqual(seen, seen.sorted(), "later backups hold later states")
        XCTAssertGreaterThanOrEqual(seen.first ?? 0, 5)
        XCTAssertEqual(try assertConsistentPrefix(url), last.value)
    }

    /// Replacing a store that has a `-wal` with uncheckpointed saves, `-shm` and an external
    /// data folder: none of the old store's files survive to meet the new database.
    func testReplacingAStoreLeavesNoneOfItsOldFiles() throws {
        let directory = try TemporaryDirectory()
        let (container, url) = try makeStore(in: directory)
        let context = container.newBackgroundContext()
        for _ in 0..<3 { _ = try Self.saveNext(context) }
        let otherDirectory = try TemporaryDirectory()
        let (other, otherURL) = try makeStore(in: otherDirectory)
        let otherContext = other.newBackgroundContext()
        for _ in 0..<7 { _ = try Self.saveNext(otherContext) }
        let oldFiles = Set(try FileManager.default.contentsOfDirectory(atPath: otherDirectory.url.appendingPathComponent(".Live_SUPPORT/_EXTERNAL_DATA").path))
        XCTAssertEqual(oldFiles.count, 8, "seven entries and the counter")
        // The destination's writer still holds its -wal; the store is loaded by another coordinator.
        XCTAssertTrue(FileManager.default.fileExists(atPath: otherURL.path + "-wal"))
        try other.persistentStoreCoordinator.removePersistentStore(try XCTUnwrap(other.persistentStoreCoordinator.persistentStores.first))

        try container.persistentStoreCoordinator.replacePersistentStore(at: otherURL, withPersistentStoreFrom: url, type: .sqlite)
        XCTAssertEqual(try assertConsistentPrefix(otherURL), 3)
        let newFiles = Set(try FileManager.default.contentsOfDirectory(atPath: otherDirectory.url.appendingPathComponent(".Live_SUPPORT/_EXTERNAL_DATA").path))
        XCTAssertEqual(newFiles.count, 4, "three entries and the counter")
        XCTAssertTrue(newFiles.isDisjoint(with: oldFiles), "the old store's files went with it")
    }
}
