import Foundation
import StoreCore

extension InferredModel {
    /// Rebuilds the model of a Core Data XML store from the file alone: every `<object>` names
    /// its entity and declares its attributes' types and its relationships' cardinality and
    /// destination. Entity names keep their case when the metadata lists them. A hand-edited
    /// file is read as far as it makes sense and the notes say what could not be. The file is
    /// never changed. docs/inspection.md lists what is inferred and its limits.
    ///
    /// For example:
    ///
    /// ```swift
    /// let inferred = try InferredModel(xmlStoreAt: URL(fileURLWithPath: "template.mslice"))
    /// inferred.model.entitiesByName["Unit"]?.attributesByName["value"]?.attributeType   // .integer32
    /// ```
    ///
    /// - Throws: ``/StoreCore/StoreError`` — `io` when the file cannot be read; `wrongFormat`, `corrupt` or
    ///   `truncated` when it is not a well-formed XML store (the message names the line).
    public init(xmlStoreAt url: URL) throws {
        self = try Self.inferring(from: url) { try XMLModelInference(data: $0).infer() }
    }
}
