import Foundation
import StoreCore
import StoreTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A child process saves to a file-backed atomic store in a loop and is killed with SIGKILL at
/// a random moment, again and again; after every kill the store must open and hold exactly one
/// of the states a save left (the last one the child reported, or the one it was writing).
final class CrashSafetyTests: XCTestCase {
    /// Kills per store type; the issue asks for at least 100 across XML and binary.
    private let killsPerType = 55

    func testKillingASavingProcessLeavesTheOldOrTheNewStore() throws {
        _ = try builtTool("stowage-save-loop")  // skips when it is not built
        for backend in StoreBackend.crashTested {
            backend.register()
            let directory = try TemporaryDirectory()
            let url = directory.file("SaveLoop.\(backend.fileExtension ?? "store")")
            var generator = SeededGenerator(state: 42)
            var lastState: Int64 = -1
            var killedAfterSaving = 0
            for kill in 0..<killsPerType {
                let reported = try runAndKill(backend, url: url, afterMilliseconds: Int.random(in: 40...160, using: &generator))
                let state = try SaveLoopStore.check(url, type: backend.type)
                let floor = max(lastState, reported ?? lastState)
                XCTAssertTrue(state == floor || state == floor + 1, "\(backend), kill \(kill): the store holds save \(state), expected \(floor) or \(floor + 1)")
                if reported != nil { killedAfterSaving += 1 }
                lastState = state
            }
            // Enough kills must land after a save was reported for the test to prove anything; how
            // many do depends on the machine's load, so the floor is low.
            XCTAssertGreaterThan(killedAfterSaving, killsPerType / 5, "\(backend): kills should land while the child saves")
            XCTAssertGreaterThan(lastState, Int64(killsPerType), "\(backend): the saves went on between kills")
        }
    }

    /// Starts the child on the store, kills it after `delay` milliseconds, and returns the last
    /// save it reported.
    private func runAndKill(_ backend: StoreBackend, url: URL, afterMilliseconds delay: Int) throws -> Int64? {
        let child = Process()
        child.executableURL = try builtTool("stowage-save-loop")
        child.arguments = [backend.type.rawValue, url.path]
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
