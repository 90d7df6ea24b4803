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
}
