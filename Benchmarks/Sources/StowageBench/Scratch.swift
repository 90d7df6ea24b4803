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

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    static func removeAll() {
        try? FileManager.default.removeItem(at: directory)
    }
}
