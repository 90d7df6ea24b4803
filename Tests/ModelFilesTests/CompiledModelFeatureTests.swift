import Foundation
@testable import ModelFiles
import StoreCore
import StoreTestSupport
import Testing

/// Every setting a model can carry survives its compiled form: derived attributes, validation
/// rules, defaults of every type, transformers and value classes, external storage, history
/// preservation, renaming identifiers and version hash modifiers, user info, R-tree and partial
/// indexes, fetched properties, templates, configurations and version identifiers.
@Suite struct CompiledModelFeatureTests {
    static func featureModel() throws -> ManagedObjectModel {
        let reference = Date(timeIntervalSinceReferenceDate: 700_000_000)
        var nearby = StoreFetchRequest(entityName: "Place")
        nearby.predicate = try StorePredicate(format: "ANY visits.note CONTAINS[cd] $TEXT AND rank IN {1, 2, 3}")
        nearby.fetchLimit = 20
        nearby.returnsDistinctResults = true
        nearby.resultType = .managedObjectID
        var siblings = StoreFetchRequest(entityName: "Place")
        siblings.predicate = try StorePredicate(format: "region == $FETCH_SOURCE.region AND NOT (name BEGINSWITH \"x\")")
        var everything = StoreFetchRequest(entityName: "Visit")
        everything.includesSubentities = false
        everything.fetchBatchSize = 50
        return try ManagedObjectModel(
            configurations: ["Cloud": ["Place", "Visit"], "Local": ["Region"]], versionIdentifiers: ["2.1", "beta"],
            fetchRequestTemplates: ["nearby": nearby, "everything": everything]
        ) {
            EntityDescription(
                "Place", uniquenessConstraints: [["name", "region"]],
                indexes: [
                    FetchIndexDescription(name: "byLocation", elements: [.init("latitude"), .init("longitude")], kind: .rTree),
                    FetchIndexDescription(name: "ranked", elements: [.init("rank", ascending: false)], partialIndexPredicate: "rank > 0"),
                ],
                userInfo: ["sync": "yes"], renamingIdentifier: "Location", versionHashModifier: "2", representedClassName: "PlaceMO",
                fetchedProperties: [FetchedPropertyDescription(name: "siblings", fetchRequest: siblings, userInfo: ["kind": "fetched"])]
            ) {
                EntityProperties([
                    AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "Unnamed",
                        validationRules: [.minimumLength(1), .maximumLength(64), .pattern("[A-Z].*")], userInfo: ["key": "title"]),
                    AttributeDescription(name: "latitude", type: .double, defaultValue: .double(-0.5), validationRules: [.minimum(.double(-90)), .maximum(.double(90))]),
                    AttributeDescription(name: "longitude", type: .float, defaultValue: .float(1.25)),
                    AttributeDescription(name: "rank", type: .integer16, defaultValue: .integer(3), validationRules: [.minimum(.integer(0))], versionHashModifier: "r"),
                    AttributeDescription(name: "price", type: .decimal, defaultValue: .decimal(Decimal(string: "12.75") ?? 0)),
                    AttributeDescription(name: "opened", type: .date, defaultValue: .date(reference), validationRules: [.minimum(.date(reference))]),
                    AttributeDescription(name: "code", type: .uuid, defaultValue: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID())),
                    AttributeDescription(name: "site", type: .uri, defaultValue: .uri(URL(string: "https://example.org/place") ?? URL(fileURLWithPath: "/"))),
                    AttributeDescription(name: "open", type: .boolean, isOptional: false, defaultValue: true),
                    AttributeDescription(name: "photo", type: .binaryData, allowsExternalBinaryDataStorage: true, preservesValueInHistoryOnDeletion: true),
                    AttributeDescription(name: "tags", type: .transformable(named: "NSSecureUnarchiveFromData"), customClassName: "[String]"),
                    AttributeDescription(name: "palette", type: .transformable(named: "PaletteTransformer"), renamingIdentifier: "colours"),
                    AttributeDescription(name: "scratch", type: .string, isTransient: true),
                    AttributeDescription(name: "visitCount", type: .integer64, derivationExpression: "visits.@count"),
                    AttributeDescription(name: "searchName", type: .string, derivationExpression: "lowercase:(name)"),
                    AttributeDescription(name: "touched", type: .date, derivationExpression: "now()"),
                    RelationshipDescription(name: "visits", destinationEntityName: "Visit", inverseName: "place", isToMany: true, isOrdered: true,
                        deleteRule: .cascade, minCount: 1, maxCount: 10, userInfo: ["order": "date"]),
                    RelationshipDescription(name: "region", destinationEntityName: "Region", inverseName: "places", deleteRule: .noAction, isOptional: false,
                        minCount: 1, maxCount: 1, renamingIdentifier: "area"),
                    RelationshipDescription(name: "lastVisit", destinationEntityName: "Visit", inverseName: nil, maxCount: 1, isTransient: true),
                ])
            }
            EntityDescription("Visit") {
                .attribute("note", .string)
                .toOne("place", destination: "Place", inverse: "visits", deleteRule: .deny)
            }
            EntityDescription("Region", isAbstract: true) {
                .attribute("title", .string)
                .toMany("places", destination: "Place", inverse: "region")
            }
            EntityDescription("City", parent: "Region") {
                .attribute("population", .integer32)
            }
        }
    }

    @Test func everySettingSurvivesTheCompiledForm() throws {
        let model = try Self.featureModel()
        var archiver = CompiledModelArchiver()
        let version = try CompiledModelFile.decode(try archiver.encode(model), name: "Places", url: URL(fileURLWithPath: "/Places.mom"))
        #expect(archiver.skippedTemplates.isEmpty)
        let difference = ModelSummary.difference(ModelSummary.lines(version.model), ModelSummary.lines(model))
        #expect(difference == nil, "\(difference ?? "")")
        #expect(version.warnings.isEmpty, "\(version.warnings)")
        #expect(version.model.coreDataEntityVersionHashesByName == model.coreDataEntityVersionHashesByName)
        // Read as Core Data reads it, a few settings by name.
        let place = try version.model.entity(named: "Place")
        #expect(place.attributesByName["visitCount"]?.derivationExpression == "visits.@count")
        #expect(place.attributesByName["photo"]?.allowsExternalBinaryDataStorage == true)
        #expect(place.relationshipsByName["region"]?.deleteRule == .noAction)
        #expect(version.model.fetchRequestTemplatesByName["nearby"]?.resultType == .managedObjectID)
    }
}
