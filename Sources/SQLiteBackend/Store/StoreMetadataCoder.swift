import Foundation
import StoreCore

/// Store metadata as the binary property list Core Data keeps in `Z_METADATA.Z_PLIST`:
/// `NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes` (entity name → hash),
/// `NSStoreModelVersionHashesVersion`, and the application's own keys beside them.
///
/// Keys Stowage does not model (Core Data's private `_NS…` keys, arrays, dictionaries) are
/// kept as they were when the metadata is rewritten.
///
/// For example:
///
/// ```swift
/// let data = StoreMetadataCoder.encode(metadata, preserving: nil)
/// let again = try StoreMetadataCoder.decode(data, storeUUID: metadata.storeUUID)
/// ```
enum StoreMetadataCoder {
    private static let reservedKeys: Set<String> = [
        "NSStoreType", "NSStoreUUID", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
        "NSStoreModelVersionIdentifiers", "NSPersistenceFrameworkVersion",
    ]

    static func decode(_ data: Data, storeUUID: String) throws -> StoreMetadata {
        var metadata = StoreMetadata(storeUUID: storeUUID, storeType: PersistentStoreType.sqlite.rawValue)
        guard !data.isEmpty else { return metadata }
        guard case .dictionary(let entries) = try BinaryPropertyListReader().read(data) else {
            throw StoreError(.corrupt, "the metadata is not a dictionary")
        }
        if case .dictionary(let hashes)? = entries["NSStoreModelVersionHashes"] {
            for (name, value) in hashes { if case .data(let hash) = value { metadata.modelVersionHashes[name] = hash } }
        }
        for (key, value) in entries where !reservedKeys.contains(key) {
            if let converted = storeValue(value) { metadata.userInfo[key] = converted }
        }
        return metadata
    }

    static func encode(_ metadata: StoreMetadata, preserving previous: Data?) -> Data {
        var entries: [String: PropertyListValue] = [:]
        if let previous, case .dictionary(let old)? = try? BinaryPropertyListReader().read(previous) {
            // Keep what this coder cannot represent (Core Data's own keys, nested values).
            for (key, value) in old where storeValue(value) == nil || reservedKeys.contains(key) { entries[key] = value }
        }
        for (key, value) in metadata.userInfo {
            if let converted = propertyListValue(value) { entries[key] = converted }
        }
        entries["NSStoreType"] = .string("SQLite")
        entries["NSStoreUUID"] = .string(metadata.storeUUID)
        entries["NSStoreModelVersionHashes"] = .dictionary(metadata.modelVersionHashes.mapValues(PropertyListValue.data))
        entries["NSStoreModelVersionHashesVersion"] = .integer(3)
        if entries["NSStoreModelVersionIdentifiers"] == nil { entries["NSStoreModelVersionIdentifiers"] = .array([.string("")]) }
        return BinaryPropertyListWriter().write(.dictionary(entries))
    }

    private static func storeValue(_ value: PropertyListValue) -> StoreValue? {
        switch value {
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .real(let number): .double(number)
        case .boolean(let flag): .boolean(flag)
        case .date(let date): .date(date)
        case .data(let data): .data(data)
        default: nil
        }
    }

    private static func propertyListValue(_ value: StoreValue) -> PropertyListValue? {
        switch value {
        case .null: nil
        case .integer(let number): .integer(number)
        case .double(let number): .real(number)
        case .float(let number): .real(Double(number))
        case .decimal(let number): .string(number.description)
        case .string(let text): .string(text)
        case .boolean(let flag): .boolean(flag)
        case .date(let date): .date(date)
        case .data(let data): .data(data)
        case .uuid(let uuid): .string(uuid.uuidString)
        case .uri(let url): .string(url.absoluteString)
        case .objectID(let id): .string(id.uriRepresentation.absoluteString)
        }
    }
}
