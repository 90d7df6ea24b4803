import Foundation

/// A directory of this process's own for the database files the SQLite workloads create,
/// removed when the program ends (a child run for peak memory has its own).
enum Scratch {
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("stowage-bench-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// A new, empty directory inside the scratch directory; remove it with ``remove(_:)`` when
    /// its files are no longer needed.
    static func makeDirectory(_ prefix: String) throws -> URL {
        let url = directory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A copy of the SQLite file at `source` (with its `-wal` and `-shm` files, if present) in a
    /// new directory made by ``makeDirectory(_:)``, under the same file name.
    static func copyDatabase(_ source: URL, _ prefix: String) throws -> (directory: URL, url: URL) {
        let directory = try makeDirectory(prefix)
        let url = directory.appendingPathComponent(source.lastPathComponent)
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let from = URL(fileURLWithPath: source.path + suffix)
            guard suffix.isEmpty || manager.fileExists(atPath: from.path) else { continue }
            try manager.copyItem(at: from, to: URL(fileURLWithPath: url.path + suffix))
        }
        return (directory, url)
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    static func removeAll() {
        PostgresServer.stopIfStarted()
        try? FileManager.default.removeItem(at: directory)
    }
}
