import Foundation
import StoreCore

/// Store metadata as the binary property list Core Data keeps in `Z_METADATA.Z_PLIST` (the
/// dictionary itself is described by `StoreMetadata.propertyList(storeTypeName:preserving:)`),
/// without `NSStoreUUID`: the UUID is `Z_METADATA.Z_UUID`, and Core Data's plists do not repeat it.
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

    /// The plist for `metadata`, keeping what `previous` holds that Stowage does not model;
    /// `modelVersionIdentifiers`, when given, replaces `NSStoreModelVersionIdentifiers` (Core Data
    /// records the model's identifiers as they are: `[""]` for an Xcode model without one, whose
    /// compiled form holds the empty identifier, `[]` for a model built in code).
    static func encode(_ metadata: StoreMetadata, preserving previous: Data?, modelVersionIdentifiers: Set<String>? = nil) -> Data {
        var old: [String: PropertyListValue] = [:]
        if let previous, case .dictionary(let entries)? = try? BinaryPropertyListReader().read(previous) { old = entries }
        if let modelVersionIdentifiers {
            old["NSStoreModelVersionIdentifiers"] = .array(modelVersionIdentifiers.sorted().map(PropertyListValue.string))
        }
        var entries = metadata.propertyList(storeTypeName: "SQLite", preserving: old)
        entries["NSStoreUUID"] = nil
        return BinaryPropertyListWriter().write(.dictionary(entries))
    }
}
