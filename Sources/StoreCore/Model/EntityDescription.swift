import Foundation

/// An entity: a kind of object in a model, with attributes, relationships, an optional
/// parent entity and the class that represents its objects.
///
/// Sub-entities inherit every property of their parent; a fetch of a parent includes the
/// objects of its sub-entities unless the request says otherwise. An abstract entity has no
/// objects of its own.
///
/// For example:
///
/// ```swift
/// EntityDescription("Post", class: Post.self, uniquenessConstraints: [["slug"]]) {
///     .attribute("title", .string, optional: false, defaultValue: "")
///     .attribute("slug", .string)
///     .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
/// }
/// EntityDescription("Article", parent: "Post") {
///     .attribute("summary", .string)
/// }
/// ```
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: the `internal(set) var`s are filled in by `ManagedObjectModel.init` before the
    // model is returned to anyone; afterwards the description is never mutated.

    /// The entity's name, unique in its model.
    public let name: String
    /// The class that represents the entity's objects.
    public let managedObjectClass: ManagedObject.Type
    /// Whether the entity only serves as a parent and has no objects of its own.
    public let isAbstract: Bool
    /// The name of the parent entity, if any.
    public let superentityName: String?
    /// Sets of attribute names whose values must be unique together across the entity.
    public let uniquenessConstraints: [[String]]
    /// Indexes recorded for stores that build them.
    public let indexes: [FetchIndexDescription]
    /// Free-form information for the application.
    public let userInfo: [String: String]
    /// The entity's name in the previous model version, for migrations.
    public let renamingIdentifier: String?
    /// Extra input to the version hash.
    public let versionHashModifier: String?
    /// The properties this entity declares itself (not inherited ones).
    public let declaredProperties: [PropertyDescription]
    /// The class name the model file gives the entity (`representedClassName`, e.g. `"ParentMO"`),
    /// for code generators and tools; ``managedObjectClass`` is what Stowage instantiates.
    public let representedClassName: String?
    /// Fetched properties: named fetch requests evaluated on demand, kept apart from
    /// ``properties`` (they have no storage).
    public let fetchedProperties: [FetchedPropertyDescription]

    /// The model the entity belongs to.
    public internal(set) weak var model: ManagedObjectModel?
    /// The parent entity.
    public internal(set) var superentity: EntityDescription? {
        get { superentityAnchor?.object }
        set { superentityAnchor = newValue?.anchor }
    }
    private weak var superentityAnchor: WeakAnchor<EntityDescription>?
    /// What properties and sub-entities refer to, weakly, instead of the entity itself (which
    /// keeps its fast reference counting: see ``WeakAnchor``). Set at the end of `init`.
    private(set) var anchor: WeakAnchor<EntityDescription>?
    /// The direct sub-entities.
    public var subentities: [EntityDescription] {
        subentityNames.compactMap { model?.entitiesByName[$0] }
    }
    var subentityNames: [String] = []
    /// The entity's own name and the names of all its descendants.
    public internal(set) var entityAndDescendantNames: Set<String> = []

    /// Every property, inherited ones first, in declaration order.
    public internal(set) var properties: [PropertyDescription] = []
    /// Every property by name.
    public internal(set) var propertiesByName: [String: PropertyDescription] = [:]
    /// Every attribute by name.
    public internal(set) var attributesByName: [String: AttributeDescription] = [:]
    /// Every relationship by name.
    public internal(set) var relationshipsByName: [String: RelationshipDescription] = [:]
    /// The composite attributes, inherited ones included, by name. Their elements are in
    /// ``properties`` and ``attributesByName`` under their key paths (`location.latitude`).
    public internal(set) var compositeAttributesByName: [String: CompositeAttributeDescription] = [:]
    /// The key path of every composite, nested ones included (`address`, `address.geo`).
    package internal(set) var compositeKeyPaths: Set<String> = []
    /// The position of each property in ``properties``; a sub-entity keeps its parent's positions.
    public internal(set) var propertyIndexes: [String: Int] = [:]
    /// Each property's kind by index, what snapshots store, and new objects' starting values.
    // Read for every object made, loaded or saved: no runtime exclusivity check. It is set while
    // the model is built, before any context uses it.
    @exclusivity(unchecked) public internal(set) var layout = EntityLayout.empty
    /// New values, all `.null`, for a row of this entity being read (see
    /// ``EntityLayout/makeNullValues()``). For the store modules: read from another module,
    /// ``layout`` costs a runtime exclusivity check (the attribute that turns it off applies in
    /// this module only), and a retain and a release of the layout, per row.
    package func makeNullValues() -> StoreValues { layout.makeNullValues() }
    /// A stable hash of everything that changes how the entity's objects are stored.
    public internal(set) var versionHash = Data()
    /// Shared by the temporary IDs of the entity's new objects.
    let temporaryIDSpace: ManagedObjectID.Space
    /// The property index of each typed declaration (`@Attribute`, `@Relationship`) of the class.
    let typedPropertyIndexes = TypedPropertyIndexes()

    /// Creates an entity from its properties.
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - managedObjectClass: The class of its objects: `ManagedObject` (access by key) or a subclass.
    ///   - parent: The parent entity's name.
    ///   - isAbstract: Whether the entity has no objects of its own.
    ///   - uniquenessConstraints: Groups of attribute names whose values no two objects may share
    ///     (Core Data's `uniquenessConstraints`).
    ///   - indexes: Fetch indexes the SQL stores create.
    ///   - userInfo: The entity's user info (`userInfo` in Xcode's model editor).
    ///   - renamingIdentifier: The entity's name in an earlier model version, for lightweight migration.
    ///   - versionHashModifier: Changes the entity's version hash without changing its layout.
    ///   - representedClassName: The class name a model file gives (kept for Core Data's hashes).
    ///   - fetchedProperties: The entity's fetched properties.
    ///   - properties: The properties: a ``EntityProperties`` chain of `.attribute` / `.toOne` / `.toMany`, or descriptions.
    public init(
        _ name: String, class managedObjectClass: ManagedObject.Type = ManagedObject.self, parent: String? = nil,
        isAbstract: Bool = false, uniquenessConstraints: [[String]] = [], indexes: [FetchIndexDescription] = [],
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        representedClassName: String? = nil, fetchedProperties: [FetchedPropertyDescription] = [],
        @PropertyListBuilder properties: () -> [PropertyDescription] = { [] }
    ) {
        self.name = name
        self.representedClassName = representedClassName
        self.fetchedProperties = fetchedProperties
        self.temporaryIDSpace = ManagedObjectID.Space(entityName: name, storeIdentifier: nil, isTemporary: true)
        self.managedObjectClass = managedObjectClass
        self.superentityName = parent
        self.isAbstract = isAbstract
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.declaredProperties = properties()
        anchor = WeakAnchor(self)
    }

    /// The attributes, inherited ones first.
    public var attributes: [AttributeDescription] { properties.compactMap { $0 as? AttributeDescription } }
    /// The relationships, inherited ones first.
    public var relationships: [RelationshipDescription] { properties.compactMap { $0 as? RelationshipDescription } }

    /// The top of the entity's inheritance chain (the entity itself when it has no parent).
    public var rootEntity: EntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// Whether this entity is `other` or one of its descendants.
    public func isKind(of other: EntityDescription) -> Bool {
        other.entityAndDescendantNames.contains(name)
    }

    /// The property named `key`, or a `ModelError.Code.unknownKey` error naming the entity.
    public func property(named key: String) throws(ModelError) -> PropertyDescription {
        guard let property = propertiesByName[key] else {
            throw ModelError(.unknownKey, entity: name, key: key, "no property '\(key)' on entity \(name)")
        }
        return property
    }

    public var description: String { name }
}

/// Collects the properties written inside an ``EntityDescription``.
///
/// For example:
///
/// ```swift
/// EntityDescription("Comment") {
///     .attribute("text", .string)
///     if withAuthors { .attribute("author", .string) }
/// }
/// ```
@resultBuilder
public enum PropertyListBuilder {
    /// A chain of `.attribute`, `.toOne`, `.toMany` and `.composite` calls: its properties, in order.
    public static func buildExpression(_ list: EntityProperties) -> [PropertyDescription] { list.properties }
    /// A property description written on its own line (an `AttributeDescription`, …).
    public static func buildExpression(_ property: PropertyDescription) -> [PropertyDescription] { [property] }
    /// The block's lines joined, in the order written.
    public static func buildBlock(_ parts: [PropertyDescription]...) -> [PropertyDescription] { parts.flatMap { $0 } }
    /// An `if` without `else`: its properties when the condition holds, none otherwise.
    public static func buildOptional(_ part: [PropertyDescription]?) -> [PropertyDescription] { part ?? [] }
    /// The properties of the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first: [PropertyDescription]) -> [PropertyDescription] { first }
    /// The properties of the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second: [PropertyDescription]) -> [PropertyDescription] { second }
    /// A `for` loop: every iteration's properties, in order.
    public static func buildArray(_ parts: [[PropertyDescription]]) -> [PropertyDescription] { parts.flatMap { $0 } }
}

/// Collects the entities written inside a ``ManagedObjectModel``.
///
/// For example:
///
/// ```swift
/// let model = try ManagedObjectModel {
///     EntityDescription("Post") { .attribute("title", .string) }
/// }
/// ```
@resultBuilder
public enum EntityListBuilder {
    /// One entity description.
    public static func buildExpression(_ entity: EntityDescription) -> [EntityDescription] { [entity] }
    /// An array of entity descriptions, such as ones built elsewhere.
    public static func buildExpression(_ entities: [EntityDescription]) -> [EntityDescription] { entities }
    /// The block's lines joined, in the order written.
    public static func buildBlock(_ parts: [EntityDescription]...) -> [EntityDescription] { parts.flatMap { $0 } }
    /// An `if` without `else`: its entities when the condition holds, none otherwise.
    public static func buildOptional(_ part: [EntityDescription]?) -> [EntityDescription] { part ?? [] }
    /// The entities of the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first: [EntityDescription]) -> [EntityDescription] { first }
    /// The entities of the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second: [EntityDescription]) -> [EntityDescription] { second }
    /// A `for` loop: every iteration's entities, in order.
    public static func buildArray(_ parts: [[EntityDescription]]) -> [EntityDescription] { parts.flatMap { $0 } }
}
