import Foundation

/// The digests Core Data records in a store's metadata beside the entity version hashes, computed
/// from those hashes alone (checked against every Apple-written store in the test fixtures):
///
/// - `NSStoreModelVersionHashesDigest`: SHA-512 over each entity's name (UTF-8) followed by its
///   hash, entities in name order, Base64-encoded;
/// - `NSStoreModelVersionChecksumKey` (the model's `versionChecksum`): SHA-256 over the hashes
///   alone, entities in name order, Base64-encoded.
///
/// Name order is `NSString.compare(_:)`'s: by UTF-16 code units, case-sensitive
/// (`SyncFeatureEntity` before `SyncableSettingsMetadata`).
///
/// For example:
///
/// ```swift
/// let hashes = model.coreDataEntityVersionHashesByName
/// CoreDataModelDigests.hashesDigest(of: hashes)     // 88 Base64 characters
/// CoreDataModelDigests.versionChecksum(of: hashes)  // 44 Base64 characters
/// ```
package enum CoreDataModelDigests {
    /// The value of `NSStoreModelVersionHashesDigest` for these entity version hashes.
    package static func hashesDigest(of hashes: [String: Data]) -> String {
        var input = Data()
        for name in sortedNames(hashes) {
            input.append(contentsOf: Array(name.utf8))
            input.append(hashes[name] ?? Data())
        }
        return SHA512.hash(input).base64EncodedString()
    }

    /// The value of `NSStoreModelVersionChecksumKey` — Core Data's
    /// `NSManagedObjectModel.versionChecksum` — for these entity version hashes.
    package static func versionChecksum(of hashes: [String: Data]) -> String {
        var input = Data()
        for name in sortedNames(hashes) { input.append(hashes[name] ?? Data()) }
        return SHA256.hash(input).base64EncodedString()
    }

    private static func sortedNames(_ hashes: [String: Data]) -> [String] {
        hashes.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
    }
}
