import Foundation
import StoreCore

/// Binary values of attributes that allow external storage, as Core Data keeps them: the
/// column holds a marker byte, then either the bytes themselves (`0x01`, small values) or the
/// name of a file under `.<store name>_SUPPORT/_EXTERNAL_DATA/` (`0x02`, values above the
/// threshold).
///
/// Files are written (and synced) before the row's transaction commits, and removed when the
/// transaction fails; files of deleted or replaced values are removed after the commit.
///
/// For example:
///
/// ```swift
/// let column = try storage.encode(bigPhoto, pending: &written)   // 0x02 + "3F2A…"
/// let bytes = try ExternalBinaryStorage.read(column, from: storage)
/// ```
struct ExternalBinaryStorage: Sendable {
    static let inlineMarker: UInt8 = 1
    static let externalMarker: UInt8 = 2

    let directory: URL
    let threshold: Int

    init(storeURL: URL, threshold: Int) {
        let name = storeURL.deletingPathExtension().lastPathComponent
        directory = storeURL.deletingLastPathComponent()
            .appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        self.threshold = threshold
    }

    /// The column value for `data`: inline below the threshold, otherwise a new file whose
    /// URL is appended to `written`.
    func encode(_ data: Data, written: inout [URL]) throws -> Data {
        guard data.count > threshold else { return Data([Self.inlineMarker]) + data }
        let name = UUID().uuidString
        let file = directory.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: file)
            let handle = try FileHandle(forWritingTo: file)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw StoreError(.io, url: file, "cannot write an externally stored value: \(error.localizedDescription)", underlying: error)
        }
        written.append(file)
        return Data([Self.externalMarker]) + Data(name.utf8)
    }

    /// The file a stored column value names, if it names one.
    func file(for column: Data) -> URL? {
        guard column.first == Self.externalMarker else { return nil }
        let name = String(decoding: column.dropFirst(), as: UTF8.self)
        guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else { return nil }
        return directory.appendingPathComponent(name)
    }

    /// The bytes a stored column value stands for.
    static func read(_ column: Data, from storage: ExternalBinaryStorage?) throws -> Data {
        switch column.first {
        case inlineMarker: return Data(column.dropFirst())
        case externalMarker:
            guard let storage, let file = storage.file(for: column) else {
                throw StoreError(.corrupt, "an externally stored value names no valid file")
            }
            do {
                return try Data(contentsOf: file)
            } catch {
                throw StoreError(.io, url: file, "the file of an externally stored value cannot be read: \(error.localizedDescription)", underlying: error)
            }
        default:
            // Written without a marker (by another program): the bytes as they are.
            return column
        }
    }
}
