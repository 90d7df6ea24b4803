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
    public var entityName: String
    public var predicate: StorePredicate?
    /// Whether objects of sub-entities are updated too.
    public var includesSubentities = true
    /// The new value of each attribute, by name.
    public var propertiesToUpdate: [String: StoreExpression] = [:]
    public var resultType: BatchResultType = .statusOnly

    public init(entityName: String, predicate: StorePredicate? = nil, propertiesToUpdate: [String: StoreExpression] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}
