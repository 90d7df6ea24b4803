import Foundation

/// This process's own folder in the temporary directory (`stowage-fuzz-<pid>`), for harnesses
/// that must hand their input to a reader as a file; it is removed when the fuzzer exits.
///
/// For example:
///
/// ```swift
/// let contents = fuzzWorkDirectory.appendingPathComponent("Fuzz.xcdatamodel/contents")
/// ```
public let fuzzWorkDirectory: URL = {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("stowage-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: fuzzWorkDirectory) }
    return folder
}()
