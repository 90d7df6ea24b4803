import Foundation
import StoreCore

/// The copy of its model Core Data keeps inside every SQLite store it writes: the single row of
/// `Z_MODELCACHE.Z_CONTENT`, a raw-deflate-compressed compiled model (the same
/// `NSKeyedArchiver` archive as a `.mom`). Decoding it gives the exact model the store was
/// written with — types, optionality, defaults, inverse names, transformers — which is what
/// inspection mode uses when a store has one (`InferredModel(storeAt:)` in `Stowage`).
///
/// Inflating is bounded by ``maxInflatedSize``; decoding goes through the same reader as `.mom`
/// files, so nothing is instantiated by name and everything it reads past is a warning.
///
/// For example:
///
/// ```swift
/// // blob: SELECT Z_CONTENT FROM Z_MODELCACHE
/// let version = try CoreDataModelCache.version(decoding: blob, storeURL: storeURL)
/// version.model.entitiesByName["Author"]?.relationshipsByName["books"]?.inverseName   // "authors"
/// version.warnings                                                                   // what was read past
/// ```
public enum CoreDataModelCache {
    /// The most bytes the cache may inflate to (Apple's are a few kilobytes).
    public static let maxInflatedSize = 64 << 20

    /// The version name given to a model read from a store's cache.
    public static let versionName = "Z_MODELCACHE"

    /// Inflates and decodes the content of `Z_MODELCACHE`.
    ///
    /// - Parameters:
    ///   - compressed: `Z_CONTENT` as stored: raw deflate.
    ///   - storeURL: The store it came from, named in errors and warnings.
    /// - Throws: ``ModelFileError`` — `tooLarge` beyond ``maxInflatedSize``, `malformed` for data
    ///   that is not raw deflate or not a compiled model, `invalidModel` for a model that fails
    ///   its checks.
    public static func version(decoding compressed: Data, storeURL: URL) throws(ModelFileError) -> ModelVersion {
        let archive: Data
        do {
            archive = try Inflater.inflate(compressed, limit: maxInflatedSize)
        } catch {
            switch error {
            case .tooLarge: throw ModelFileError(.tooLarge, url: storeURL, "the model cache (Z_MODELCACHE) \(error)")
            case .corrupt: throw ModelFileError(.malformed, url: storeURL, "the model cache (Z_MODELCACHE) cannot be inflated: \(error)")
            }
        }
        return try CompiledModelFile.decode(archive, name: versionName, url: storeURL)
    }
}
