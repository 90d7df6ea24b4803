import Foundation

/// Store metadata as the property-list dictionary Core Data writes into every store (SQLite's
/// `Z_METADATA`, the XML store's `<metadata>`, the binary store's header): `NSStoreType`,
/// `NSStoreUUID`, `NSStoreModelVersionHashes` (entity name → hash),
/// `NSStoreModelVersionHashesVersion`, the two digests of the hashes Core Data records beside them
/// (`NSStoreModelVersionHashesDigest`, `NSStoreModelVersionChecksumKey`: ``CoreDataModelDigests``),
/// `NSPersistenceFrameworkVersion` (kept when the store has one, else
/// ``coreDataFrameworkVersion``), and the application's own keys.
///
/// Keys Stowage does not model (Core Data's private `_NS…` keys, arrays, dictionaries) are kept
/// as they were when the metadata is rewritten: pass the dictionary that was read as `preserving`.
///
/// For example:
///
/// ```swift
/// let dictionary = metadata.propertyList(storeTypeName: "XML", preserving: [:])
/// let again = StoreMetadata(propertyList: dictionary, storeUUID: metadata.storeUUID, storeType: "xml")
/// ```
extension StoreMetadata {
    /// Keys written by the store itself rather than by the application.
    package static let reservedPropertyListKeys: Set<String> = [
        "NSStoreType", "NSStoreUUID", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
        "NSStoreModelVersionIdentifiers", "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashesDigest",
        "NSStoreModelVersionChecksumKey",
    ]

    /// The `NSPersistenceFrameworkVersion` Stowage records in a store that has none: the build of
    /// Core Data whose metadata Stowage writes (1338, the newest in the Apple-written fixture stores
    /// with the same keys — `NSStoreModelVersionChecksumKey`, no
    /// `NSPersistenceMaximumFrameworkVersion`). It cannot be derived from the model; Core Data
    /// reads it only to treat stores from its own builds up to 386 (macOS 10.7) with their old
    /// hashes, and records its own build when it next writes the metadata.
    package static let coreDataFrameworkVersion: Int64 = 1338

    /// Reads the metadata dictionary of a store; `storeUUID` is used when the dictionary has none.
    package init(propertyList entries: [String: PropertyListValue], storeUUID: String, storeType: String) {
        self.init(storeUUID: entries["NSStoreUUID"]?.stringValue ?? storeUUID, storeType: storeType)
        if case .dictionary(let hashes)? = entries["NSStoreModelVersionHashes"] {
            for (name, value) in hashes { if case .data(let hash) = value { modelVersionHashes[name] = hash } }
        }
        for (key, value) in entries where !Self.reservedPropertyListKeys.contains(key) {
            if let converted = value.storeValue { userInfo[key] = converted }
        }
    }

    /// The metadata dictionary to write, keeping the keys of `previous` it cannot represent.
    package func propertyList(storeTypeName: String, preserving previous: [String: PropertyListValue]) -> [String: PropertyListValue] {
        var entries: [String: PropertyListValue] = [:]
        for (key, value) in previous where value.storeValue == nil || Self.reservedPropertyListKeys.contains(key) {
            entries[key] = value
        }
        for (key, value) in userInfo {
            if let converted = PropertyListValue(value) { entries[key] = converted }
        }
        entries["NSStoreType"] = .string(storeTypeName)
        entries["NSStoreUUID"] = .string(storeUUID)
        entries["NSStoreModelVersionHashes"] = .dictionary(modelVersionHashes.mapValues(PropertyListValue.data))
        entries["NSStoreModelVersionHashesVersion"] = .integer(3)
        entries["NSStoreModelVersionHashesDigest"] = .string(CoreDataModelDigests.hashesDigest(of: modelVersionHashes))
        entries["NSStoreModelVersionChecksumKey"] = .string(CoreDataModelDigests.versionChecksum(of: modelVersionHashes))
        if entries["NSPersistenceFrameworkVersion"] == nil { entries["NSPersistenceFrameworkVersion"] = .integer(Self.coreDataFrameworkVersion) }
        if entries["NSStoreModelVersionIdentifiers"] == nil { entries["NSStoreModelVersionIdentifiers"] = .array([.string("")]) }
        return entries
    }
}

extension PropertyListValue {
    /// The value as a metadata value, when it is a scalar.
    package var storeValue: StoreValue? {
        switch self {
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .real(let number): .double(number)
        case .boolean(let flag): .boolean(flag)
        case .date(let date): .date(date)
        case .data(let data): .data(data)
        default: nil
        }
    }

    /// A metadata value as a property-list value (`nil` for ``StoreValue/null``).
    package init?(_ value: StoreValue) {
        switch value {
        case .null: return nil
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .float(let number): self = .real(Double(number))
        case .decimal(let number): self = .string(number.description)
        case .string(let text): self = .string(text)
        case .boolean(let flag): self = .boolean(flag)
        case .date(let date): self = .date(date)
        case .data(let data): self = .data(data)
        case .uuid(let uuid): self = .string(uuid.uuidString)
        case .uri(let url): self = .string(url.absoluteString)
        case .objectID(let id): self = .string(id.uriRepresentation.absoluteString)
        }
    }
}
