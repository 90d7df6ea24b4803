import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// The concurrency debug switch traps wrong-queue access; the trap is observed in a child
/// process that reruns one test of this bundle with the switch on.
final class ConcurrencyDebugTests: XCTestCase {
    private static let childMarker = "STOWAGE_TEST_WRONG_QUEUE_CHILD"

    /// Runs only inside the child process: touches an object off its context's queue.
    func testWrongQueueAccessChild() throws {
        guard ProcessInfo.processInfo.environment[Self.childMarker] == "1" else { return }
        let context = try TestStack.context()
        let post = try context.performAndWait { () -> Post in
            let post = try Post(context: context)
            post.title = "Confined"
            return post
        }
        // This thread is not the context's queue: in debug mode this traps.
        _ = post.title
        XCTFail("the wrong-queue access was not trapped")
    }

    func testWrongQueueAccessIsTrappedInDebugMode() throws {
        guard ProcessInfo.processInfo.environment[Self.childMarker] == nil else { return }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        let process = Process()
        process.executableURL = executable
        process.arguments = ["StoreCoreTests.ConcurrencyDebugTests/testWrongQueueAccessChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childMarker] = "1"
        environment["STOWAGE_CONCURRENCY_DEBUG"] = "1"
        // No backtracer: an orphaned swift-backtrace can hold the pipe open after the child dies.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // A trap ends the child on a signal; under a sanitizer, whose handler catches the signal,
        // with a failing exit status instead. Either way it did not go on past the access.
        XCTAssertTrue(process.terminationReason == .uncaughtSignal || process.terminationStatus != 0, output)
        XCTAssertFalse(output.contains("the wrong-queue access was not trapped"), output)
        XCTAssertTrue(output.contains("Stowage concurrency violation"), output)
        XCTAssertTrue(output.contains("Post object"), output)
        XCTAssertTrue(output.contains("private queue"), output)
    }

    func testRightQueueAccessIsFine() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Fine"
            XCTAssertEqual(post.title, "Fine")
        }
    }
}
