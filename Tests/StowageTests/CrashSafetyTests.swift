import Foundation
import StoreCore
@testable import SQLiteBackend
import StoreTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A child process saves to a store in a loop (SQLite with persistent history on, XML, binary)
/// and is killed with SIGKILL at a random moment, again and again; after every kill the store
/// must open and hold exactly one of the states a save left (the last one the child reported,
/// or the one it was writing), and a SQLite file must pass `integrity_check`.
///
/// `swift test` runs a few dozen kills per type; `STOWAGE_CRASH_CYCLES=1000 swift test --filter
/// CrashSafetyTests` runs a campaign (docs/reliability.md records the last one).
final class CrashSafetyTests: XCTestCase {
    /// Kills per store type: `STOWAGE_CRASH_CYCLES`, else 40.
    private let killsPerType = ProcessInfo.processInfo.environment["STOWAGE_CRASH_CYCLES"].flatMap { Int($0) }.map { max(1, $0) } ?? 40

    func testKillingASavingProcessLeavesTheOldOrTheNewStore() throws {
        _ = try builtTool("stowage-save-loop")  // skips when it is not built
        for backend in StoreBackend.crashTested {
            backend.register()
            let directory = try TemporaryDirectory()
            let url = directory.file("SaveLoop.\(backend.fileExtension ?? "store")")
            var generator = SeededGenerator(state: 42)
            var lastState: Int64 = -1
            var kills = 0, killedAfterSaving = 0
            let started = Date()
            // At least `killsPerType` kills; more (within a time bound) until a fifth of them landed
            // after a save was reported, however fast or slow the child runs on this machine.
            while kills < killsPerType || (killedAfterSaving <= kills / 5 && Date().timeIntervalSince(started) < 120) {
                let delay = Int.random(in: 40...160, using: &generator) + (killedAfterSaving <= kills / 5 ? kills : 0)
                let reported = try runAndKill(backend, url: url, afterMilliseconds: delay)
                if backend.type == .sqlite {
                    try assertIntact(sqliteFile: url, reported: reported, kill: kills)
                }
                let state = try SaveLoopStore.check(url, type: backend.type)
                if backend.type != .sqlite {
                    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }
                    XCTAssertEqual(leftovers, [], "\(backend), kill \(kills): the open after a kill removes the killed writer's temporary file")
                }
                // A fresh store's first save (the filler, state 0) is not reported: a kill just
                // after the next one leaves save 1 with nothing reported.
                let floor = max(lastState, reported ?? lastState)
                let ceiling = floor == -1 ? 1 : floor + 1
                XCTAssertTrue((floor...ceiling).contains(state), "\(backend), kill \(kills): the store holds save \(state), expected \(floor)…\(ceiling)")
                if reported != nil { killedAfterSaving += 1 }
                lastState = state
                kills += 1
            }
            XCTAssertGreaterThan(killedAfterSaving, kills / 5, "\(backend): kills should land while the child saves")
            // Every kill after a reported save followed at least one more save.
            XCTAssertGreaterThanOrEqual(lastState, Int64(killedAfterSaving), "\(backend): the saves went on between kills")
            if ProcessInfo.processInfo.environment["STOWAGE_CRASH_CYCLES"] != nil {
                print("crash campaign: \(backend) \(kills) kills, \(killedAfterSaving) after a reported save, \(lastState) saves acknowledged, 0 failures, \(Int(Date().timeIntervalSince(started))) s")
            }
        }
    }

    /// A child runs batch inserts of 500 entries in a loop on a SQLite store with history on and
    /// is killed at random moments: every batch is in the store whole or not at all, batches are
    /// numbered without a gap, and the last the child reported is there.
    func testKillingABatchInsertLeavesWholeBatches() throws {
        _ = try builtTool("stowage-save-loop")
        SQLiteStore.register()
        let directory = try TemporaryDirectory()
        let url = directory.file("Batches.sqlite")
        var generator = SeededGenerator(state: 7)
        var highest: Int64 = 0
        var kills = 0, killedAfterBatch = 0
        let started = Date()
        // A tenth of the kills must land after a reported batch: opening the store takes longer as
        // it grows, so in a long campaign more kills land before the child's first batch.
        while kills < killsPerType / 2 || (killedAfterBatch <= kills / 10 && Date().timeIntervalSince(started) < 120) {
            let delay = Int.random(in: 60...200, using: &generator) + (killedAfterBatch <= kills / 5 ? kills * 2 : 0)
            let reported = try runAndKill(.sqlite, url: url, afterMilliseconds: delay, mode: "--batch")
            try assertIntact(sqliteFile: url, reported: reported, kill: kills)
            let container = PersistentContainer(name: "Batches", managedObjectModel: try SaveLoopStore.makeModel())
            container.persistentStoreDescriptions = [PersistentStoreDescription(url: url)]
            try container.loadPersistentStores()
            let batches = try SaveLoopStore.batches(in: container.newBackgroundContext())
            for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
            let count = Int64(batches.count)
            XCTAssertEqual(Set(batches.keys), Set((0..<count).map { $0 + 1 }), "kill \(kills): batches numbered without a gap")
            XCTAssertTrue(batches.values.allSatisfy { $0 == SaveLoopStore.batchSize }, "kill \(kills): a partial batch: \(batches.filter { $0.value != SaveLoopStore.batchSize })")
            let floor = max(highest, reported ?? highest)
            XCTAssertTrue(count == floor || count == floor + 1, "kill \(kills): \(count) batches, expected \(floor) or \(floor + 1)")
            if reported != nil { killedAfterBatch += 1 }
            highest = count
            kills += 1
        }
        XCTAssertGreaterThan(killedAfterBatch, kills / 10, "kills should land while the child inserts")
        if ProcessInfo.processInfo.environment["STOWAGE_CRASH_CYCLES"] != nil {
            print("crash campaign: sqlite batch inserts \(kills) kills, \(killedAfterBatch) after a reported batch, \(highest) batches acknowledged, 0 failures, \(Int(Date().timeIntervalSince(started))) s")
        }
    }

    /// Checks a SQLite file after a kill with `PRAGMA integrity_check`. On a busy machine the child
    /// can be killed before it created the file; then it cannot have reported a save either.
    private func assertIntact(sqliteFile url: URL, reported: Int64?, kill: Int) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTAssertNil(reported, "kill \(kill): a save was reported, but there is no store file")
            return
        }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        XCTAssertEqual(try connection.scalar("PRAGMA integrity_check"), .text("ok"), "kill \(kill)")
    }

    /// Starts the child on the store, kills it after `delay` milliseconds, and returns the last
    /// save it reported.
    private func runAndKill(_ backend: StoreBackend, url: URL, afterMilliseconds delay: Int, mode: String? = nil) throws -> Int64? {
        let child = Process()
        child.executableURL = try builtTool("stowage-save-loop")
        let flags = mode.map { [$0] } ?? (backend.type == .sqlite ? ["--history"] : [])
        child.arguments = [backend.type.rawValue, url.path] + flags
        child.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        Thread.sleep(forTimeInterval: Double(delay) / 1_000)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return printed.split(separator: "\n").last.flatMap { Int64($0) }
    }
}
