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

    package init() {}

    /// Removes the files the write wrote (it failed) or those it made obsolete (it committed).
    /// A file that cannot be removed stays behind, unreferenced; the write's outcome stands.
    package func finish(committed: Bool) {
        for file in committed ? obsolete : written { try? FileManager.default.removeItem(at: file) }
    }
}
