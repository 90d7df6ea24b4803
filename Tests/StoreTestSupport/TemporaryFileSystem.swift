import Foundation
import StowageTestKit

/// A small tmpfs mounted in a temporary directory, for tests of full disks and read-only media;
/// unmounted when released. `nil` where mounting is not permitted (the tests then skip).
///
/// For example:
///
/// ```swift
/// guard let disk = TemporaryFileSystem(size: "1m") else { throw XCTSkip("cannot mount") }
/// let url = disk.url.appendingPathComponent("Store.sqlite")
/// disk.remountReadOnly()
/// ```
public final class TemporaryFileSystem {
    public let url: URL
    private let directory: TemporaryDirectory

    public init?(size: String) {
        guard let directory = try? TemporaryDirectory() else { return nil }
        self.directory = directory
        url = directory.url.appendingPathComponent("mount", isDirectory: true)
        guard (try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)) != nil,
            Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", url.path])
        else { return nil }
    }

    deinit {
        _ = Self.run("/bin/umount", ["-l", url.path])  // lazily: a store may still be open
    }

    /// Makes the file system read-only (true when it worked).
    @discardableResult
    public func remountReadOnly() -> Bool { Self.run("/bin/mount", ["-o", "remount,ro", url.path]) }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
