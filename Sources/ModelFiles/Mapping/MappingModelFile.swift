import Foundation
import StoreCore

/// Reads Xcode's mapping model source, the `xcmapping.xml` inside an `.xcmappingmodel` package:
/// a Core Data XML store of Xcode's own editing objects — one `XDDEVMAPPINGMODEL` (the paths of
/// the two model versions, its entity mappings in order), an `XDDEVENTITYMAPPING` per entity
/// mapping (`name`, `sourcename`, `destinationname`, `mappingtypename`, `mappingnumber`,
/// `migrationpolicyclassname`, `sourcefilterpredicatestring`) and an `XDDEVATTRIBUTEMAPPING` or
/// `XDDEVRELATIONSHIPMAPPING` per property mapping (`name`, `valueexpressiondata`: an archived
/// `NSExpression`, or `sourcekeypath`/`sourcemappingname` for a relationship Xcode fills).
///
/// Parsed with libxml2 as model files are (no network, no entities, no DTD); expressions are
/// decoded by the safe keyed-archive reader, never by instantiating classes.
///
/// For example:
///
/// ```swift
/// let file = try MappingModelFile.read(URL(fileURLWithPath: "V2toV3.xcmappingmodel"))
/// file.sourceModelPath        // "Model.xcdatamodeld/Model 2.xcdatamodel"
/// file.mapping.entityMappings.map(\.name)
/// ```
struct MappingModelFile {
    /// The largest `xcmapping.xml` read (Xcode's files are a few hundred kilobytes).
    static let maxFileSize = 32 << 20

    var mapping: MappingModel
    /// The model versions the file names, as Xcode recorded their paths.
    var sourceModelPath: String?
    var destinationModelPath: String?

    /// One `<object>` of the file.
    private struct Object {
        let kind: String
        let attributes: [String: String]
        let relationships: [String: [String]]
        let line: Int
    }

    /// Reads a package (or the `xcmapping.xml` itself). With the two models, entity mappings get
    /// their version hashes and a mapping type from what the models say; otherwise from the file.
    static func read(_ url: URL, sourceModel: ManagedObjectModel? = nil, destinationModel: ManagedObjectModel? = nil) throws(ModelFileError) -> MappingModelFile {
        let file = url.pathExtension == "xcmappingmodel" ? url.appendingPathComponent("xcmapping.xml") : url
        let data = try CompiledModelFile.read(file, limit: maxFileSize)
        let root = try ModelXMLElement.parse(data, url: file)
        var objects: [String: Object] = [:]
        for element in root.children where element.name == "object" {
            guard let id = element.attribute("id") else { continue }
            var attributes: [String: String] = [:]
            var relationships: [String: [String]] = [:]
            for child in element.children {
                guard let name = child.attribute("name")?.lowercased() else { continue }
                if child.name == "attribute" { attributes[name] = child.text }
                if child.name == "relationship" {
                    relationships[name] = (child.attribute("idrefs") ?? "").split(separator: " ").map(String.init)
                }
            }
            objects[id] = Object(kind: (element.attribute("type") ?? "").uppercased(), attributes: attributes, relationships: relationships, line: element.line)
        }
        guard let model = objects.values.first(where: { $0.kind == "XDDEVMAPPINGMODEL" }) else {
            throw ModelFileError(.malformed, url: file, "the file holds no mapping model (no XDDEVMAPPINGMODEL object): this is not an Xcode mapping model")
        }
        let entityObjects = (model.relationships["entitymappings"] ?? []).compactMap { objects[$0] }
            .sorted { Int($0.attributes["mappingnumber"] ?? "") ?? 0 < Int($1.attributes["mappingnumber"] ?? "") ?? 0 }
        // A relationship Xcode fills names the mapping that carries its destination entity over.
        var mappingNameByDestination: [String: String] = [:]
        for object in entityObjects {
            if let destination = object.attributes["destinationname"], mappingNameByDestination[destination] == nil {
                mappingNameByDestination[destination] = name(of: object)
            }
        }
        var entityMappings: [EntityMapping] = []
        for object in entityObjects {
            let context = Context(url: file, objects: objects, mappingNameByDestination: mappingNameByDestination, sourceModel: sourceModel, destinationModel: destinationModel)
            entityMappings.append(try context.entityMapping(object))
        }
        return MappingModelFile(
            mapping: MappingModel(entityMappings: entityMappings),
            sourceModelPath: model.attributes["sourcemodelpath"], destinationModelPath: model.attributes["destinationmodelpath"])
    }

    private static func name(of object: Object) -> String {
        if let name = object.attributes["name"], !name.isEmpty { return name }
        let source = object.attributes["sourcename"] ?? "", destination = object.attributes["destinationname"] ?? ""
        return !source.isEmpty && !destination.isEmpty ? "\(source)To\(destination)" : (destination.isEmpty ? source : destination)
    }

    private struct Context {
        let url: URL
        let objects: [String: Object]
        let mappingNameByDestination: [String: String]
        let sourceModel: ManagedObjectModel?
        let destinationModel: ManagedObjectModel?

        func error(_ object: Object, _ message: String) -> ModelFileError {
            ModelFileError(.malformed, url: url, line: object.line, message)
        }

        func entityMapping(_ object: Object) throws(ModelFileError) -> EntityMapping {
            let name = MappingModelFile.name(of: object)
            let sourceName = object.attributes["sourcename"].flatMap { $0.isEmpty ? nil : $0 }
            let destinationName = object.attributes["destinationname"].flatMap { $0.isEmpty ? nil : $0 }
            let sourceEntity = sourceName.flatMap { sourceModel?.entitiesByName[$0] }
            let destinationEntity = destinationName.flatMap { destinationModel?.entitiesByName[$0] }
            let policy = object.attributes["migrationpolicyclassname"].flatMap { $0.isEmpty ? nil : $0 }
            var predicate: StorePredicate?
            if let text = object.attributes["sourcefilterpredicatestring"], !text.isEmpty, text != "TRUEPREDICATE" {
                do { predicate = try StorePredicate(format: text) } catch {
                    throw self.error(object, "entity mapping \(name): the source filter '\(text)' does not parse: \(error)")
                }
            }
            var attributeMappings: [PropertyMapping] = []
            for id in object.relationships["attributemappings"] ?? [] {
                guard let property = objects[id] else { continue }
                attributeMappings.append(try propertyMapping(property, in: name, source: sourceEntity, isRelationship: false))
            }
            var relationshipMappings: [PropertyMapping] = []
            for id in object.relationships["relationshipmappings"] ?? [] {
                guard let property = objects[id] else { continue }
                relationshipMappings.append(try propertyMapping(property, in: name, source: sourceEntity, isRelationship: true))
            }
            return EntityMapping(
                name: name, mappingType: mappingType(object, source: sourceName, destination: destinationName, sourceEntity: sourceEntity, destinationEntity: destinationEntity, policy: policy),
                sourceEntityName: sourceName, destinationEntityName: destinationName,
                attributeMappings: attributeMappings, relationshipMappings: relationshipMappings, sourcePredicate: predicate,
                entityMigrationPolicyClassName: policy,
                sourceEntityVersionHash: sourceEntity.flatMap { entity in sourceModel?.coreDataEntityVersionHashesByName[entity.name] },
                destinationEntityVersionHash: destinationEntity.flatMap { entity in destinationModel?.coreDataEntityVersionHashesByName[entity.name] })
        }

        /// Xcode's `mappingtypename`, else what the two entities say (as Core Data's compiler decides).
        private func mappingType(
            _ object: Object, source: String?, destination: String?, sourceEntity: EntityDescription?, destinationEntity: EntityDescription?,
            policy: String?
        ) -> EntityMapping.MappingType {
            switch object.attributes["mappingtypename"]?.lowercased() {
            case "add": return .add
            case "remove": return .remove
            case "copy": return .copy
            case "transform": return .transform
            case "custom": return .custom
            default: break
            }
            if source == nil { return .add }
            if destination == nil { return .remove }
            if policy != nil { return .custom }
            if let sourceEntity, let destinationEntity, sourceEntity.versionHash == destinationEntity.versionHash { return .copy }
            return .transform
        }

        private func propertyMapping(_ object: Object, in mapping: String, source: EntityDescription?, isRelationship: Bool) throws(ModelFileError) -> PropertyMapping {
            guard let name = object.attributes["name"], !name.isEmpty else {
                throw error(object, "a property mapping of \(mapping) has no name")
            }
            let written = object.attributes["autogenerateexpression"].map { $0 == "1" || $0.uppercased() == "YES" } == true ? nil : object.attributes["valueexpressiondata"]
            if let written, !written.isEmpty {
                return PropertyMapping(name: name, valueExpression: try expression(written, object: object, place: "\(mapping).\(name)"))
            }
            let keyPath = object.attributes["sourcekeypath"].flatMap { $0.isEmpty ? nil : $0 }
            if isRelationship {
                let path = keyPath ?? name
                let through = object.attributes["sourcemappingname"].flatMap { $0.isEmpty ? nil : $0 }
                    ?? source?.relationshipsByName[path]?.destinationEntity.flatMap { mappingNameByDestination[$0.name] }
                guard let through else { return .from(path, to: name) }
                return PropertyMapping(name: name, valueExpression: .function("FUNCTION", [
                    .variable("manager"), .constant(.string("destinationInstancesForEntityMappingNamed:sourceInstances:")),
                    .constant(.string(through)), .member(.variable("source"), path),
                ]))
            }
            return keyPath.map { .from($0, to: name) } ?? PropertyMapping(name: name, valueExpression: nil)
        }

        /// An archived `NSExpression` (base64 of a keyed archive) as an expression.
        private func expression(_ base64: String, object: Object, place: String) throws(ModelFileError) -> StoreExpression {
            let compact = base64.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) else {
                throw error(object, "\(place): the value expression is not base64")
            }
            let text: String
            do {
                let graph = try KeyedArchiveGraph(data)
                text = try ArchivedPredicate(graph: graph).expression(.uid(graph.root))
            } catch {
                throw self.error(object, "\(place): the archived value expression cannot be read (\(error))")
            }
            do {
                return try StoreExpression(format: text)
            } catch {
                throw self.error(object, "\(place): the value expression '\(text)' is not one Stowage evaluates (\(error))")
            }
        }
    }
}

extension MappingModel {
    /// Reads an Xcode mapping model: an `.xcmappingmodel` package (or its `xcmapping.xml`). Given
    /// the two model versions it maps between, each entity mapping records their entities'
    /// version hashes (so ``/StoreCore/MappingModel/isMapping(fromSourceModel:toDestinationModel:)`` checks them) and
    /// takes its type from what changed; without them, entities are matched by name.
    ///
    /// For example:
    ///
    /// ```swift
    /// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Model2to3.xcmappingmodel"), sourceModel: v2, destinationModel: v3)
    /// try MigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(at: storeURL, type: .sqlite, with: mapping)
    /// ```
    ///
    /// - Throws: ``ModelFileError`` for a file that is not a mapping model, or a value expression
    ///   or source filter that cannot be read (nothing is silently left out: a mapping that loses
    ///   a property would lose data).
    public init(contentsOf url: URL, sourceModel: ManagedObjectModel? = nil, destinationModel: ManagedObjectModel? = nil) throws(ModelFileError) {
        self = try MappingModelFile.read(url, sourceModel: sourceModel, destinationModel: destinationModel).mapping
    }
}
