/// What happens to related objects when an object is deleted (Core Data's `NSDeleteRule`).
///
/// For example:
///
/// ```swift
/// .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
/// ```
public enum DeleteRule: Sendable, Hashable {
    /// Remove the deleted object from the related objects' inverse relationship.
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse to delete the object while the relationship holds any object.
    case deny
    /// Leave the related objects as they are (they may point at a deleted object).
    case noAction
}

/// A relationship from one entity to another: to-one, to-many or ordered to-many, with an
/// inverse, a delete rule and a minimum and maximum count.
///
/// A relationship built in code names its inverse; the model checks that the inverse exists and
/// points back. The context keeps both sides in step: setting one updates the other at once.
/// Relationships loaded from Xcode model files may have no inverse (`inverseName == nil`), as
/// Core Data allows: then only the declaring side knows about the link.
///
/// For example:
///
/// ```swift
/// EntityDescription("Post") {
///     .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
/// }
/// EntityDescription("Comment") {
///     .toOne("post", destination: "Post", inverse: "comments", optional: false)
/// }
/// ```
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    // @unchecked: immutable once its model is built (see PropertyDescription).

    /// The name of the entity the relationship points at.
    public let destinationEntityName: String
    /// The name of the inverse relationship on the destination (`nil`: the relationship has none).
    public let inverseName: String?
    /// Whether the relationship holds many objects.
    public let isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public let isOrdered: Bool
    /// What deleting the source object does to the destination objects.
    public let deleteRule: DeleteRule
    /// The fewest objects a to-many relationship may hold when saved (0: no minimum).
    public let minCount: Int
    /// The most objects a to-many relationship may hold when saved (0: no maximum).
    public let maxCount: Int

    /// The destination entity (set when the model is built).
    public internal(set) var destinationEntity: EntityDescription? {
        get { destinationAnchor?.object }
        set { destinationAnchor = newValue?.anchor }
    }
    private weak var destinationAnchor: WeakAnchor<EntityDescription>?
    /// The inverse relationship (set when the model is built).
    public internal(set) weak var inverseRelationship: RelationshipDescription?

    /// Creates a relationship (Core Data's `NSRelationshipDescription`); inside an entity, `.toOne(…)`
    /// and `.toMany(…)` are the shorter way. Counts of 0 mean no limit. The model checks the
    /// destination, the inverse and the counts when it is built.
    public init(
        name: String, destinationEntityName: String, inverseName: String?, isToMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
        minCount: Int = 0, maxCount: Int = 0, isTransient: Bool = false, userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) {
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        super.init(
            name: name, isOptional: isOptional, isTransient: isTransient, userInfo: userInfo,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier)
    }

    override var versionHashText: String {
        "R|\(renamingIdentifier ?? name)|\(destinationEntityName)|\(inverseName ?? "")|\(isToMany)|\(isOrdered)|\(isOptional)|\(isTransient)|\(minCount)|\(maxCount)|\(versionHashModifier ?? "")"
    }
}
