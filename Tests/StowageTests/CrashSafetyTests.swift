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
                    let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
                    XCTAssertEqual(try connection.scalar("PRAGMA integrity_check"), .text("ok"), "\(backend), kill \(kills)")
                }
                let state = try SaveLoopStore.check(url, type: backend.type)
                let floor = max(lastState, reported ?? lastState)
                XCTAssertTrue(state == floor || state == floor + 1, "\(backend), kill \(kills): the store holds save \(state), expected \(floor) or \(floor + 1)")
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

    /// Starts the child on the store, kills it after `delay` milliseconds, and returns the last
    /// save it reported.
    private func runAndKill(_ backend: StoreBackend, url: URL, afterMilliseconds delay: Int) throws -> Int64? {
        let child = Process()
        child.executableURL = try builtTool("stowage-save-loop")
        child.arguments = [backend.type.rawValue, url.path] + (backend.type == .sqlite ? ["--history"] : [])
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
