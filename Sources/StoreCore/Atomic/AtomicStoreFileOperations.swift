import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replacing and destroying the files of a store type on the atomic engine: one whole file,
/// which every save replaces by a rename (``DurableFile``).
///
/// A copy reads the source once — an open file is one whole version of it, whatever saves
/// (in this process or another) rename over the path meanwhile, so no lock is needed to read a
/// store that is in use — checks the bytes are a store of the format, and writes them durably
/// at the destination (a temporary file, `fsync`, `rename`, `fsync` of the directory). A
/// destination is only ever replaced whole; a crash leaves it as it was or as the copy.
///
/// For example:
///
/// ```swift
/// PersistentStoreRegistry.registerFileOperations(AtomicStoreFileOperations(type: .xml, format: XMLStoreFormat()), for: .xml)
/// // done by AtomicStore.register(.xml, format: XMLStoreFormat())
/// ```
struct AtomicStoreFileOperations: PersistentStoreFileOperations {
    let type: PersistentStoreType
    let format: any AtomicStoreFormat

    func replaceStore(
        at destination: URL, destinationOptions: [PersistentStoreOption: StoreValue],
        withStoreFrom source: URL, sourceOptions: [PersistentStoreOption: StoreValue]
    ) throws {
        let data = try DurableFile.read(source)
        try check(data, at: source, role: "source", unchanged: "nothing was replaced")
        if FileManager.default.fileExists(atPath: destination.path) {
            try check(try DurableFile.read(destination), at: destination, role: "destination", unchanged: "it was left as it was")
        }
        try DurableFile.replace(destination, with: data)
    }

    func destroyStore(at url: URL, options: [PersistentStoreOption: StoreValue]) throws {
        if FileManager.default.fileExists(atPath: url.path) {
            try check(try DurableFile.read(url), at: url, role: "file", unchanged: "it was left as it was")
            guard unlink(url.path) == 0 || errno == ENOENT else {
                throw StoreError(.io, url: url, "the store file cannot be removed: \(String(cString: strerror(errno)))")
            }
            DurableFile.syncDirectory(of: url)
        }
        DurableFile.removeStaleTemporaryFiles(of: url)
    }

    /// Refuses bytes that are not a store of the format (an empty file is none either).
    private func check(_ data: Data, at url: URL, role: String, unchanged: String) throws {
        guard !data.isEmpty else {
            throw StoreError(.wrongFormat, url: url, "the \(role) is empty, so it is not a \(type.rawValue) store; \(unchanged)")
        }
        do {
            _ = try format.readMetadata(data)
        } catch {
            throw StoreError(.wrongFormat, url: url, "the \(role) is not a \(type.rawValue) store (\(error)); \(unchanged)", underlying: error)
        }
    }
}
