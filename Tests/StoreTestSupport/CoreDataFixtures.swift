import Foundation

/// The stores and models Apple's Core Data wrote, in `../shared/fixtures/coredata` beside the
/// repository (never copied into it). Tests open copies, never the files themselves.
///
/// For example:
///
/// ```swift
/// let copy = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", into: directory)
/// ```
public enum CoreDataFixtures {
    /// `$STOWAGE_FIXTURES/coredata` when that variable is set, otherwise
    /// `../shared/fixtures/coredata`, found from this file's location.
    public static var root: URL {
        if let fixtures = ProcessInfo.processInfo.environment["STOWAGE_FIXTURES"] {
            return URL(fileURLWithPath: fixtures).appendingPathComponent("coredata", isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata", isDirectory: true)
    }

    /// Whether the fixtures are there (tests that need them skip otherwise, so `swift test` passes
    /// on a machine without them).
    public static var arePresent: Bool { FileManager.default.fileExists(atPath: root.path) }

    /// A model file or package under `models/`; `nil` when the fixtures are not present.
    public static func model(_ relativePath: String) -> URL? {
        let url = root.appendingPathComponent("models").appendingPathComponent(relativePath)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// A file under `stores/` (a model package kept beside its store, say), read in place;
    /// `nil` when the fixtures are not present. Never open a store this way: use ``copyOfStore(_:into:)``.
    public static func storeDirectoryFile(_ relativePath: String) -> URL? {
        let url = root.appendingPathComponent("stores").appendingPathComponent(relativePath)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Copies a store under `stores/` with its `-wal` and `-shm` files (which may hold rows)
    /// into `directory`, and returns the copy's URL; `nil` when the fixtures are not present.
    public static func copyOfStore(_ relativePath: String, into directory: URL) throws -> URL? {
        let source = root.appendingPathComponent("stores").appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: source.path) else { return nil }
        let destination = directory.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] {
            let file = URL(fileURLWithPath: source.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: destination.path + suffix))
            }
        }
        return destination
    }
}
