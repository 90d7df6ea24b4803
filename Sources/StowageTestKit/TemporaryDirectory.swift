import Foundation

/// A fresh directory under the system's temporary directory, removed when released.
///
/// For example:
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let url = directory.url.appendingPathComponent("Blog.sqlite")
/// ```
public final class TemporaryDirectory {
    /// The directory's location.
    public let url: URL

    /// Creates a new, empty directory `stowage-<UUID>` under the system's temporary directory.
    /// - Throws: The file system's error when the directory cannot be created.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file URL inside the directory.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}
