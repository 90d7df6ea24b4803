import Foundation

/// A store that cannot be migrated: no model version that wrote it, a change no mapping can be
/// inferred for, or a failure while moving the data. A migration that throws leaves the store
/// as it was.
///
/// For example:
///
/// ```swift
/// do { _ = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2) }
/// catch let error as MigrationError where error.code == .cannotInferMapping {
///     print(error)   // "Note.body: Binary becomes Date, which lightweight migration does not convert"
/// }
/// ```
public struct MigrationError: CodedError, CustomStringConvertible, Sendable {
    /// The migration error codes (`cannotInferMapping`, `missingSourceModel`, `migrationFailed`…).
    public typealias Code = ErrorCode<MigrationError>
    /// What kind of failure it is — like the `code` of Core Data's migration `NSError`s.
    public let code: Code
    /// The store concerned, if any.
    public let url: URL?
    /// The entity concerned, if any (the destination's name when there is one).
    public let entity: String?
    /// The source model's entity concerned, when it is not ``entity`` (a `.likelyEntityRename`
    /// names the removed entity here and the added one in ``entity``).
    public let sourceEntity: String?
    /// The property concerned, if any.
    public let key: String?
    /// What went wrong, in words.
    public let message: String

    /// An error of `code`, naming the store, entity and property concerned when there are some.
    public init(_ code: Code, url: URL? = nil, sourceEntity: String? = nil, entity: String? = nil, key: String? = nil, _ message: String) {
        self.code = code
        self.url = url
        self.sourceEntity = sourceEntity
        self.entity = entity
        self.key = key
        self.message = message
    }

    public var description: String {
        var place = [sourceEntity, entity].compactMap(\.self).joined(separator: " → ")
        if let key { place += place.isEmpty ? key : ".\(key)" }
        var text = place.isEmpty ? message : "\(place): \(message)"
        if let url { text += " (\(url.path))" }
        return text
    }
}

extension ErrorCode where Domain == MigrationError {
    /// The two models differ in a way lightweight migration cannot infer (Core Data's
    /// `NSInferredMappingModelError`).
    public static let cannotInferMapping = Self("cannotInferMapping")
    /// None of the known model versions wrote the store (`NSMigrationMissingSourceModelError`).
    public static let missingSourceModel = Self("missingSourceModel")
    /// A mapping was needed and inferring one was turned off (`NSMigrationMissingMappingModelError`).
    public static let missingMappingModel = Self("missingMappingModel")
    /// A mapping that does not fit the models it is used with.
    public static let invalidMapping = Self("invalidMapping")
    /// The store type has no way to migrate its stores.
    public static let unsupportedStoreType = Self("unsupportedStoreType")
    /// Moving the data failed; the store was left as it was (`NSMigrationError`).
    public static let migrationFailed = Self("migrationFailed")
    /// A removed entity and an added one look like a rename without a renaming identifier, and
    /// the store's description refuses such a migration
    /// (``PersistentStoreDescription/shouldRefuseLikelyEntityRenames``): ``MigrationError/sourceEntity``
    /// and ``MigrationError/entity`` name the two; nothing was changed.
    public static let likelyEntityRename = Self("likelyEntityRename")
}
