import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's contents so that a crash at any moment leaves either the old file or the new
/// one, never a mix: the bytes go to a temporary file in the same directory, which is flushed to
/// disk (`fsync`), renamed over the old file, and the directory is flushed so the rename lasts.
///
/// For example:
///
/// ```swift
/// try DurableFile.replace(url, with: bytes)
/// let identity = try DurableFile.identity(of: url)   // changes whenever the file is replaced
/// ```
package enum DurableFile {
    /// What identifies one version of a file: a rename or a write changes it.
    package struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
    }

    /// The identity of the file at `url`, or `nil` when there is none.
    package static func identity(of url: URL) -> Identity? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: modified)
    }

    /// Reads a whole file into memory (not mapped: a file truncated by someone else while mapped
    /// would crash the reader instead of failing its checks).
    package static func read(_ url: URL) throws(StoreError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StoreError(.io, url: url, "the store file cannot be read: \(error.localizedDescription)", underlying: error)
        }
    }

    /// Atomically and durably replaces (or creates) the file at `url` with `data`.
    ///
    /// A failure before the rename leaves the previous file and removes the temporary one. A
    /// failed flush of the directory after the rename is not reported: the new file is in place,
    /// and only a power cut at that moment could bring the previous one back (both are whole).
    package static func replace(_ url: URL, with data: Data) throws(StoreError) {
        let directory = url.deletingLastPathComponent()
        let faults = FaultInjection.injector(for: directory)
        let (temporary, descriptor) = try lockedTemporaryFile(for: url, faults: faults)
        var written = 0
        let wroteAll: Bool = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            while written < buffer.count {
                let result = FaultInjection.perform(.write, faults) { write(descriptor, base + written, buffer.count - written) }
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return true
        }
        let synced = wroteAll && FaultInjection.perform(.fsync, faults, { fsync(descriptor) }) == 0
        let writeError = errno
        close(descriptor)
        guard synced, FaultInjection.perform(.rename, faults, { rename(temporary.path, url.path) }) == 0 else {
            let reason = String(cString: strerror(synced ? errno : writeError))
            unlink(temporary.path)
            throw StoreError(.io, url: url, "the store file cannot be written (\(reason)); the previous file is unchanged")
        }
        let directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = FaultInjection.perform(.directoryFsync, faults) { fsync(directoryDescriptor) }
            close(directoryDescriptor)
        }
    }

    /// Flushes the directory holding `url` to disk, so that a rename or removal in it lasts. A
    /// failure is not reported: the change is made, and only a power cut at that moment could
    /// undo it.
    package static func syncDirectory(of url: URL) {
        syncDirectory(url.deletingLastPathComponent())
    }

    /// Flushes `directory` itself to disk (the names in it), as ``syncDirectory(of:)``.
    package static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// A new temporary file beside `url` (`.<name>.<UUID>.tmp`), open for writing and locked until
    /// the descriptor closes: a temporary file nobody holds is a crashed writer's, which an open
    /// of the store removes (``removeStaleTemporaryFiles(of:)``). Between creating the file and
    /// locking it, such a removal may take it; the file is then made again under another name.
    private static func lockedTemporaryFile(for url: URL, faults: (any FaultInjection.Injector)?) throws(StoreError) -> (URL, Int32) {
        let directory = url.deletingLastPathComponent()
        while true {
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
            let descriptor = FaultInjection.perform(.create, faults) { open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
            guard descriptor >= 0 else { throw failure("cannot create a temporary file in the store's directory", url) }
            _ = flock(descriptor, LOCK_EX)
            var held = stat(), named = stat()
            if fstat(descriptor, &held) == 0, stat(temporary.path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                return (temporary, descriptor)
            }
            close(descriptor)
        }
    }

    /// The calls a replace makes, in order, for tests that make them fail (``FaultInjection``).
    package enum Call: Sendable, Hashable, CaseIterable {
        case create, write, fsync, rename, directoryFsync
    }

    /// A test seam: an injector registered for a directory sees every call a replace of a file
    /// in it makes, and can make any of them fail with an `errno` as the system would (a full
    /// disk, an I/O error), or stand for a power cut from some call on.
    ///
    /// For example:
    ///
    /// ```swift
    /// DurableFile.FaultInjection.register(injector, for: directory)   // injector.error(for:) says EIO for the 2nd call
    /// defer { DurableFile.FaultInjection.register(nil, for: directory) }
    /// ```
    package enum FaultInjection {
        /// Decides the fate of each call.
        package protocol Injector: AnyObject, Sendable {
            /// `nil` to make the call; an `errno` value to fail it without making it.
            func error(for call: Call) -> Int32?
        }

        private struct Registered: @unchecked Sendable {
            // @unchecked: injectors are Sendable; the dictionary is only touched under the lock.
            var byDirectory: [String: any Injector] = [:]
        }

        private static let registered = Mutex(Registered())

        /// Registers (or, with `nil`, removes) the injector for replaces of files in `directory`.
        package static func register(_ injector: (any Injector)?, for directory: URL) {
            registered.withLock { $0.byDirectory[directory.standardizedFileURL.path] = injector }
        }

        static func injector(for directory: URL) -> (any Injector)? {
            registered.withLock { $0.byDirectory.isEmpty ? nil : $0.byDirectory[directory.standardizedFileURL.path] }
        }

        /// Makes the call, unless the injector fails it (then sets `errno` and returns -1).
        static func perform<Result: BinaryInteger>(_ call: Call, _ injector: (any Injector)?, _ body: () -> Result) -> Result {
            if let injector, let code = injector.error(for: call) {
                errno = code
                return -1
            }
            return body()
        }
    }

    /// Removes the temporary files crashed writers left beside `url` (`.<name>.<UUID>.tmp`): every
    /// one no live writer holds (each writer holds a lock on its own from the moment it makes it
    /// until it is renamed into place, and makes another if this took it first). Failures are
    /// ignored: a leftover is harmless, only untidy.
    package static func removeStaleTemporaryFiles(of url: URL) {
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") && name.count == prefix.count + 36 + 4 {
            let path = directory.appendingPathComponent(name).path
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
            close(descriptor)
        }
    }

    private static func failure(_ text: String, _ url: URL) -> StoreError {
        StoreError(.io, url: url, "\(text) (\(String(cString: strerror(errno)))); the previous file is unchanged")
    }
}
