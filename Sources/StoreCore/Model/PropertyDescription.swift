/// What attributes and relationships have in common: a name, optionality, transience,
/// user info and a renaming identifier for migrations.
///
/// Build properties inside an entity with a ``EntityProperties`` chain:
///
/// ```swift
/// EntityDescription("Comment") {
///     .attribute("text", .string, optional: false, defaultValue: "")
///     .toOne("post", destination: "Post", inverse: "comments")
/// }
/// ```
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: the only mutable state (`entity`) is set while the owning model is built,
    // before the model can be shared; afterwards every description is read-only.

    /// The property's name, unique within its entity and its entity's ancestors.
    public let name: String
    /// Whether the property may be nil (a to-many relationship: may be empty).
    public let isOptional: Bool
    /// Whether the value lives only in memory and is never saved.
    public let isTransient: Bool
    /// Free-form information for the application.
    public let userInfo: [String: String]
    /// The property's name in the previous model version, for migrations.
    public let renamingIdentifier: String?
    /// Extra input to the version hash, to force a new version without other changes.
    public let versionHashModifier: String?

    /// The entity that declares the property (set when the model is built).
    public internal(set) var entity: EntityDescription? {
        get { entityAnchor?.object }
        set { entityAnchor = newValue?.anchor }
    }
    private weak var entityAnchor: WeakAnchor<EntityDescription>?

    init(
        name: String, isOptional: Bool, isTransient: Bool, userInfo: [String: String],
        renamingIdentifier: String?, versionHashModifier: String?
    ) {
        self.name = name
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
    }

    public var description: String { name }

    /// The canonical text hashed into the entity's version hash.
    var versionHashText: String { "" }
}
