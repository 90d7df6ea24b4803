import Foundation

/// Updates every object a predicate selects straight in the store — Core Data's
/// `NSBatchUpdateRequest`. Each property is set to an expression evaluated per object: a
/// constant, another attribute, arithmetic, `now()`.
///
/// Values are checked against the model (type, required, validation rules) for constants before
/// anything is written; an expression whose result does not fit the attribute fails the request,
/// and nothing is written.
///
/// For example:
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Quake")
/// request.predicate = "magnitude < 2"
/// request.propertiesToUpdate = ["magnitude": try StoreExpression(format: "magnitude * 2"),
///                               "updated": try StoreExpression(format: "now()"),
///                               "reviewed": .constant(.boolean(true))]
/// request.resultType = .count
/// let changed = try context.execute(request).count
/// ```
public struct BatchUpdateRequest: Hashable, Sendable {
    /// The name of the entity whose objects are updated — like `NSBatchUpdateRequest.entityName`.
    public var entityName: String
    /// Which objects to update; `nil` updates every object of the entity — like
    /// `NSBatchUpdateRequest.predicate`.
    public var predicate: StorePredicate?
    /// Whether objects of sub-entities are updated too.
    public var includesSubentities = true
    /// The new value of each attribute, by name.
    public var propertiesToUpdate: [String: StoreExpression] = [:]
    /// What executing the request returns — like Core Data's `NSBatchUpdateRequest.resultType`;
    /// `.objectIDs` lists the updated objects. `.statusOnly` by default.
    public var resultType: BatchResultType = .statusOnly

    /// An update of the objects of `entityName` that `predicate` selects — Core Data's
    /// `NSBatchUpdateRequest(entityName:)` with its `predicate` and `propertiesToUpdate`.
    public init(entityName: String, predicate: StorePredicate? = nil, propertiesToUpdate: [String: StoreExpression] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}
