import Foundation
import Synchronization

/// A model: the entities a store holds, their properties and relationships, and named
/// configurations that split the entities between stores.
///
/// A model is checked when it is built — every relationship needs an existing destination,
/// names must be unique, defaults must fit their types — and every problem is reported together
/// in one ``ModelError``. What Core Data loads despite a flaw (an inverse that does not point
/// back) loads here too, with a warning in ``warnings`` and the log. Once built it never changes
/// and can be shared between threads.
///
/// For example:
///
/// ```swift
/// let model = try ManagedObjectModel {
///     EntityDescription("Post", class: Post.self) {
///         .attribute("title", .string, optional: false, defaultValue: "")
///         .attribute("timestamp", .date)
///         .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
///     }
///     EntityDescription("Comment", class: Comment.self) {
///         .attribute("text", .string)
///         .toOne("post", destination: "Post", inverse: "comments")
///     }
/// }
/// ```
public final class ManagedObjectModel: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: every stored property is a `let`, set only inside `init`, or (the migration
    // sources) behind a Mutex; the entities it owns are frozen by `init` before the model is returned.

    /// The entities, sorted by name.
    public let entities: [EntityDescription]
    /// The entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// The entity each subclass's `entityName` names, when that entity is represented by the
    /// subclass itself: how `init(context:)` finds its entity without building the name.
    let entitiesByClass: [ObjectIdentifier: EntityDescription]
    /// Named subsets of the entities; a store loaded with a configuration holds only those.
    public let configurations: [String: [String]]
    /// Free-form version labels for the application.
    public let versionIdentifiers: Set<String>
    /// Named fetch requests stored with the model; see ``fetchRequestFromTemplate(withName:substitutionVariables:)``.
    public let fetchRequestTemplatesByName: [String: StoreFetchRequest]
    /// A stable hash of every entity's version hash.
    public private(set) var versionHash = Data()
    /// What the model's checks found and accepted, as Core Data loads such models (an inverse
    /// that does not point back, a `now()` derivation on a `String`…), each logged as a warning
    /// (swift-log, label `stowage.model`) when the model is built. Empty for a consistent model.
    public private(set) var warnings: [ModelError] = []
    /// The derived attributes stores compute on save, entity by entity.
    package private(set) var derivedAttributes = DerivedAttributePlan.none
    /// See ``migrationSourceModels``.
    let migrationSources = Mutex<[ManagedObjectModel]>([])
    let mappingModels = Mutex<[MappingModel]>([])

    /// Builds and checks a model.
    ///
    /// - Parameters:
    ///   - configurations: Configuration names and the entities each holds.
    ///   - versionIdentifiers: Labels for the application's own bookkeeping.
    ///   - fetchRequestTemplates: Named fetch requests, whose predicates may use `$variables`.
    ///   - entities: The entities.
    /// - Throws: ``ModelError`` listing every problem found.
    public init(
        configurations: [String: [String]] = [:], versionIdentifiers: Set<String> = [],
        fetchRequestTemplates: [String: StoreFetchRequest] = [:],
        @EntityListBuilder entities: () -> [EntityDescription]
    ) throws(ModelError) {
        let list = entities().sorted { $0.name < $1.name }
        var problems: [ModelError] = []
        var byName: [String: EntityDescription] = [:]
        for entity in list {
            if entity.model != nil {
                problems.append(ModelError(.duplicateEntity, entity: entity.name, "this entity description already belongs to another model; create a new one"))
            }
            if !Self.isValidName(entity.name) {
                problems.append(ModelError(.invalidName, entity: entity.name, "'\(entity.name)' is not a valid entity name (letters, digits and _; not starting with a digit)"))
            }
            if byName[entity.name] != nil {
                problems.append(ModelError(.duplicateEntity, entity: entity.name, "two entities are named \(entity.name)"))
            }
            byName[entity.name] = entity
        }
        self.entities = list
        self.entitiesByName = byName
        var byClass: [ObjectIdentifier: EntityDescription] = [:]
        for entity in list where entity.managedObjectClass != ManagedObject.self && entity.managedObjectClass.entityName == entity.name {
            byClass[ObjectIdentifier(entity.managedObjectClass)] = entity
        }
        self.entitiesByClass = byClass
        self.configurations = configurations
        self.versionIdentifiers = versionIdentifiers
        self.fetchRequestTemplatesByName = fetchRequestTemplates
        for (name, template) in fetchRequestTemplates.sorted(by: { $0.key < $1.key }) where byName[template.entityName] == nil {
            problems.append(ModelError(.unknownEntity, entity: template.entityName, key: name, "fetch request template \(name) names unknown entity \(template.entityName)"))
        }
        guard problems.isEmpty else { throw Self.combined(problems) }

        var warnings: [ModelError] = []
        ModelLinker(model: self).link(into: &problems, warnings: &warnings)
        for (configuration, names) in configurations.sorted(by: { $0.key < $1.key }) {
            for name in names where byName[name] == nil {
                problems.append(ModelError(.unknownConfiguration, entity: name, "configuration \(configuration) names unknown entity \(name)"))
            }
        }
        guard problems.isEmpty else { throw Self.combined(problems) }
        self.warnings = warnings
        ModelWarningLog.log(warnings, of: list.map(\.name))
        for entity in list { entity.model = self }
        derivedAttributes = DerivedAttributePlan(model: self)

        var modelHash = "M|"
        for entity in list {
            entity.versionHash = SHA256.hash(Data(Self.versionHashText(of: entity).utf8))
            modelHash += entity.name + ":" + entity.versionHash.base64EncodedString() + "|"
        }
        self.versionHash = SHA256.hash(Data(modelHash.utf8))
    }

    /// The entity named `name`, or a `ModelError.Code.unknownEntity` error.
    public func entity(named name: String) throws(ModelError) -> EntityDescription {
        guard let entity = entitiesByName[name] else {
            throw ModelError(.unknownEntity, entity: name, "the model has no entity named \(name)")
        }
        return entity
    }

    /// The entities of a configuration (every entity for `nil` or the default name "Default").
    public func entities(forConfiguration name: String?) throws(ModelError) -> [EntityDescription] {
        guard let name, name != "Default" else { return entities }
        guard let names = configurations[name] else {
            throw ModelError(.unknownConfiguration, "the model has no configuration named \(name)")
        }
        var result = Set<String>()
        for entityName in names { result.formUnion(entitiesByName[entityName]?.entityAndDescendantNames ?? []) }
        return entities.filter { result.contains($0.name) }
    }

    /// The version hash of each entity, by name (what stores record to recognise their model).
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
    }

    public var description: String {
        "ManagedObjectModel(" + entities.map(\.name).joined(separator: ", ") + ")"
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return false }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_"))
        return name.unicodeScalars.allSatisfy { allowed.contains($0) }
    }

    static func combined(_ problems: [ModelError]) -> ModelError {
        var first = problems[0]
        first.detailedErrors = problems
        return first
    }

    private static func versionHashText(of entity: EntityDescription) -> String {
        let properties = entity.properties.filter { !$0.isTransient }.map(\.versionHashText).sorted()
        return "E|\(entity.renamingIdentifier ?? entity.name)|\(entity.isAbstract)|\(entity.superentityName ?? "")|\(entity.versionHashModifier ?? "")|"
            + properties.joined(separator: ";")
    }
}
