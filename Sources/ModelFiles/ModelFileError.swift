import Foundation
import StoreCore

/// A model file that cannot be read: not there, not a model, malformed XML (with the line) or a
/// malformed compiled model, a format Stowage does not read (Xcode 3 `elements`, an `.omo`
/// without its `.mom`), a file or model cache beyond the size limits, or a model that fails the
/// model's own checks (the ``/StoreCore/ModelError`` is attached).
///
/// For example:
///
/// ```swift
/// do { _ = try ManagedObjectModel(contentsOf: url) }
/// catch let error as ModelFileError { print(error) }   // "…/contents, line 7: not well-formed XML: …"
/// ```
public struct ModelFileError: CodedError, CustomStringConvertible, Sendable {
    /// The model-file error codes (`notFound`, `malformed`, `unsupportedFormat`, `tooLarge`,
    /// `invalidModel`).
    public typealias Code = ErrorCode<ModelFileError>
    /// What kind of problem it is.
    public let code: Code
    /// The file concerned.
    public let url: URL
    /// The line in the file, when the problem has one.
    public let line: Int?
    /// What went wrong, in words.
    public let message: String
    /// The model's own error, for `invalidModel`.
    public let modelError: ModelError?

    /// An error of `code` about the file at `url` (and `line`, when the problem has one), with the
    /// model's own error for `invalidModel`.
    public init(_ code: Code, url: URL, line: Int? = nil, _ message: String, modelError: ModelError? = nil) {
        self.code = code
        self.url = url
        self.line = line
        self.message = message
        self.modelError = modelError
    }

    public var description: String {
        var place = url.path
        if let line { place += ", line \(line)" }
        return "\(place): \(message)"
    }
}

extension ErrorCode where Domain == ModelFileError {
    /// Nothing (or nothing readable) at the path.
    public static let notFound = Self("notFound")
    /// Not well-formed XML, not a well-formed compiled model, or not the structure a model file has.
    public static let malformed = Self("malformed")
    /// A model format Stowage cannot read (Xcode 3 `elements`, an `.omo` without its `.mom`).
    public static let unsupportedFormat = Self("unsupportedFormat")
    /// A compiled model, or a store's compressed model cache once inflated, larger than the
    /// reader accepts (`ManagedObjectModel.maxCompiledModelSize`).
    public static let tooLarge = Self("tooLarge")
    /// The file was read but the model it describes is inconsistent (see `modelError`).
    public static let invalidModel = Self("invalidModel")
}
