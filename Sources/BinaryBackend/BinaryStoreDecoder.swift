import Foundation
import StoreCore

/// Reads a binary store file (``BinaryStoreLayout``) into an ``/StoreCore/AtomicStoreFile``, decoding the
/// columns straight from the property list's flat object table into objects laid out by the
/// model's entities (a table whose entity or columns the model does not have is read by name,
/// and the engine refuses it).
///
/// Whatever the bytes, it returns a file or throws ``/StoreCore/StoreError``: `wrongFormat`
/// for bytes that are not a binary store (not a `bplist00`, no format marker, a newer version),
/// `truncated` when the property list's trailer is missing or damaged, and
/// `corrupt` — saying where — for anything else. Only fixed levels are walked (no
/// recursion on the file's structure, so no cycle can loop); strings, data and the values made
/// from them are decoded once per object and shared; and the cells, to-many keys and decoded
/// bytes it visits, with shared references expanded, are bounded by a small multiple of the
/// file's size, so time and memory stay proportional to the file.
///
/// For example:
///
/// ```swift
/// let file = try BinaryStoreDecoder(model: model).decode(data)
/// file.objects.count
/// ```
struct BinaryStoreDecoder {
    /// The model the objects are laid out by.
    let model: ManagedObjectModel
    /// Limits for the metadata dictionary, the only part read as a free-form property list.
    var metadataLimits = BinaryPropertyListReader.Limits(maxDepth: 32, maxValueCount: 1_000_000)

    init(model: ManagedObjectModel) {
        self.model = model
    }

    /// Decodes a file; with `metadataOnly`, skips the entity tables (the file has no objects).
    func decode(_ data: Data, metadataOnly: Bool = false) throws(StoreError) -> AtomicStoreFile {
        let bytes = [UInt8](data)
        let table: BinaryPropertyListTable
        do {
            table = try BinaryPropertyListTable(bytes)
        } catch where error.code == .notBinaryPropertyList {
            throw StoreError(.wrongFormat, "the file is not a binary store: it does not start with \"bplist00\"")
        } catch {
            throw StoreError(.truncated, "the binary store file is truncated or its end is damaged: \(error)")
        }
        var reader = BinaryStoreReader(table: table, model: model, budget: 4 * bytes.count + 4096, metadataLimits: metadataLimits)
        return try reader.file(metadataOnly: metadataOnly)
    }
}
