import Foundation

extension ManagedObjectModel {
    /// Whether the model was reconstructed from a store file (``InferredModel``) rather than
    /// written by the application.
    public var isInferred: Bool { versionIdentifiers.contains(InferredModel.versionIdentifier) }
}
