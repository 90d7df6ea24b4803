import Foundation

/// A problem with a persistent store: an unknown store type, a store that cannot be opened,
/// read or written, a read-only store asked to save, or an object the store does not hold.
///
/// For example:
///
/// ```swift
/// catch let error as StoreError where error.code == .unknownStoreType { print(error) }
/// ```
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<StoreError>
    public let code: Code
    /// The store's location, if it has one.
    public let url: URL?
    /// The object concerned, if any.
    public let objectID: ManagedObjectID?
    /// What went wrong, in words.
    public let message: String

    public init(_ code: Code, url: URL? = nil, objectID: ManagedObjectID? = nil, _ message: String) {
        self.code = code
        self.url = url
        self.objectID = objectID
        self.message = message
    }

    public var description: String {
        var text = message
        if let url { text += " (\(url.path))" }
        if let objectID { text += " [\(objectID)]" }
        return text
    }
}

extension ErrorCode where Domain == StoreError {
    public static let unknownStoreType = Self("unknownStoreType")
    public static let noStores = Self("noStores")
    public static let storeAlreadyLoaded = Self("storeAlreadyLoaded")
    public static let readOnly = Self("readOnly")
    public static let objectNotFound = Self("objectNotFound")
    public static let wrongStore = Self("wrongStore")
    public static let incompatibleModel = Self("incompatibleModel")
    public static let invalidOption = Self("invalidOption")
    public static let io = Self("io")
    public static let corrupt = Self("corrupt")
    public static let unsupportedRequest = Self("unsupportedRequest")
    /// A query generation could not be pinned (the store cannot pin one, or holds as many as it
    /// allows), or a pinned one outlived the store's limit and was released.
    public static let queryGenerationUnavailable = Self("queryGenerationUnavailable")
}

extension ErrorCode where Domain == StoreError {
    /// The file is not a store of the expected type (another format, or not a store at all).
    public static let wrongFormat = Self("wrongFormat")
    /// The file ends before its contents do.
    public static let truncated = Self("truncated")
    /// The file holds an object of an entity the model does not have.
    public static let unknownEntity = Self("unknownEntity")
    /// The file holds a value for a property the model's entity does not have.
    public static let unknownProperty = Self("unknownProperty")
    /// A relationship refers to an object the store does not hold (or of the wrong entity).
    public static let danglingReference = Self("danglingReference")
    /// Another process or coordinator replaced the store's file since this store read it.
    public static let modifiedExternally = Self("modifiedExternally")
    /// The store's file (or directory) already exists where a new store was to be created.
    public static let alreadyExists = Self("alreadyExists")
}
