import Foundation
import StoreCore

/// Store metadata as the binary property list Core Data keeps in `Z_METADATA.Z_PLIST` (the
/// dictionary itself is described by `StoreMetadata.propertyList(storeTypeName:preserving:)`).
///
/// For example:
///
/// ```swift
/// let data = StoreMetadataCoder.encode(metadata, preserving: nil)
/// let again = try StoreMetadataCoder.decode(data, storeUUID: metadata.storeUUID)
/// ```
enum StoreMetadataCoder {
    static func decode(_ data: Data, storeUUID: String) throws -> StoreMetadata {
        guard !data.isEmpty else { return StoreMetadata(storeUUID: storeUUID, storeType: PersistentStoreType.sqlite.rawValue) }
        guard case .dictionary(let entries) = try BinaryPropertyListReader().read(data) else {
            throw StoreError(.corrupt, "the metadata is not a dictionary")
        }
        var metadata = StoreMetadata(propertyList: entries, storeUUID: storeUUID, storeType: PersistentStoreType.sqlite.rawValue)
        metadata.storeUUID = storeUUID
        return metadata
    }

    static func encode(_ metadata: StoreMetadata, preserving previous: Data?) -> Data {
        var old: [String: PropertyListValue] = [:]
        if let previous, case .dictionary(let entries)? = try? BinaryPropertyListReader().read(previous) { old = entries }
        return BinaryPropertyListWriter().write(.dictionary(metadata.propertyList(storeTypeName: "SQLite", preserving: old)))
    }
}
