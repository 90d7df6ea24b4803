import Foundation
import StoreCore

extension InferredModel {
    /// Rebuilds the model of a Stowage binary store from the file alone: entities, attribute
    /// types, and relationships with their destinations (found from the keys they hold).
    /// Relationships that hold no object in the file cannot be placed and are left out (the
    /// notes name them); sub-entities and ordering are not recorded in the format. The file is
    /// never changed. docs/inspection.md lists what is inferred and its limits.
    ///
    /// For example:
    ///
    /// ```swift
    /// let inferred = try InferredModel(binaryStoreAt: URL(fileURLWithPath: "Blog.binarystore"))
    /// ```
    ///
    /// - Throws: ``/StoreCore/StoreError`` — `io` when the file cannot be read, `wrongFormat` when it is not
    ///   a Stowage binary store (the message says to pass the model instead).
    public init(binaryStoreAt url: URL) throws {
        self = try Self.inferring(from: url) { try BinaryModelInference(data: $0).infer() }
    }
}
