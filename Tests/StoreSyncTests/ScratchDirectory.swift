import Foundation

/// A fresh directory for many short-lived stores: in memory (`/dev/shm`, where a sync of a
/// file costs nothing) when the system has it, else under the temporary directory. Removed when released.
final class ScratchDirectory: Sendable {
    let url: URL

    init() throws {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("stowage-sync-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}
