import Foundation

/// Files a write keeps outside the database (SQLite's external binary data): those it wrote,
/// removed if the write fails, and those it made obsolete, removed once it commits.
///
/// For example:
///
/// ```swift
/// let files = SQLWriteFiles()
/// files.written.append(newFile)
/// files.finish(committed: false)    // removes newFile
/// ```
package final class SQLWriteFiles {
    package var written: [URL] = []
    package var obsolete: [URL] = []
    /// Removes the obsolete files once the write has committed; a driver may put them off (the
    /// SQLite store does while a backup copies its files).
    package var removeObsolete: ([URL]) -> Void = SQLWriteFiles.remove

    package init() {}

    /// Removes the files the write wrote (it failed) or those it made obsolete (it committed).
    /// A file that cannot be removed stays behind, unreferenced; the write's outcome stands.
    package func finish(committed: Bool) {
        if committed {
            if !obsolete.isEmpty { removeObsolete(obsolete) }
        } else {
            Self.remove(written)
        }
    }

    /// Removes `files`; one that cannot be removed stays behind, unreferenced.
    package static func remove(_ files: [URL]) {
        for file in files { try? FileManager.default.removeItem(at: file) }
    }
}
