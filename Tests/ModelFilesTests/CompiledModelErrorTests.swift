import Foundation
@testable import ModelFiles
import StoreCore
import StoreTestSupport
import Testing

/// Compiled models that are damaged, hostile or hold what Stowage has no counterpart for: a
/// clear ``ModelFileError`` or a warning naming what was left out, never a crash.
@Suite struct CompiledModelErrorTests {
    private let url = URL(fileURLWithPath: "/Broken.mom")

    private func read(_ data: Data) throws(ModelFileError) -> ModelVersion {
        try CompiledModelFile.decode(data, name: "Broken", url: url)
    }

    private func error(_ data: Data) -> ModelFileError? {
        do {
            _ = try read(data)
            return nil
        } catch {
            return error
        }
    }

    /// A model of one entity whose attribute fields are `attribute` (merged over a valid
    /// string attribute), with `extraEntityFields` merged over the entity's.
    private func model(attribute: [String: PropertyListValue] = [:], attributeClass: String = "NSAttributeDescription",
                       entity extraEntityFields: [String: PropertyListValue] = [:],
                       model extraModelFields: (inout KeyedArchiveGraph.Builder) throws -> [String: PropertyListValue] = { _ in [:] }) throws -> Data {
        var builder = KeyedArchiveGraph.Builder()
        let root = builder.reserve()
        let entity = builder.reserve()
        let property = builder.reserve()
        var attributeFields: [String: PropertyListValue] = [
            "NSPropertyName": .uid(try builder.value("title")), "NSEntity": .uid(entity), "NSAttributeType": .integer(700), "_P": .integer(243),
            "NSIsOptional": .boolean(true),
        ]
        attributeFields.merge(attribute) { $1 }
        builder.set(property, attributeClass, superclasses: ["NSPropertyDescription"], fields: attributeFields)
        let propertyKey = try builder.value("title")
        let properties = builder.add("NSMutableDictionary", fields: ["NS.keys": .array([.uid(propertyKey)]), "NS.objects": .array([.uid(property)])])
        var entityFields: [String: PropertyListValue] = [
            "NSEntityName": .uid(try builder.value("Note")), "NSProperties": .uid(properties), "NSManagedObjectModel": .uid(root),
        ]
        entityFields.merge(extraEntityFields) { $1 }
        builder.set(entity, "NSEntityDescription", fields: entityFields)
        let entityKey = try builder.value("Note")
        let entities = builder.add("NSMutableDictionary", fields: ["NS.keys": .array([.uid(entityKey)]), "NS.objects": .array([.uid(entity)])])
        var modelFields: [String: PropertyListValue] = ["NSEntities": .uid(entities)]
        modelFields.merge(try extraModelFields(&builder)) { $1 }
        builder.set(root, "NSManagedObjectModel", fields: modelFields)
        return builder.archive(root: root)
    }

    @Test func aMinimalHandWrittenModelReads() throws {
        let version = try read(try model())
        #expect(version.model.entitiesByName["Note"]?.attributesByName["title"]?.attributeType == .string)
        #expect(version.warnings.isEmpty)
    }

    @Test func bytesThatAreNotACompiledModelAreMalformed() throws {
        #expect(error(Data())?.code == .malformed)
        #expect(error(Data("<?xml version=\"1.0\"?><model/>".utf8))?.code == .malformed)
        #expect(error(Data("bplist00".utf8))?.code == .malformed)
        #expect(error(BinaryPropertyListWriter().write(["$archiver": "NSKeyedArchiver"]))?.code == .malformed)
        // A keyed archive of something else: Foundation values, or another class at the root.
        #expect(error(try KeyedArchive.archive(["not": "a model"]))?.message.contains("not an NSManagedObjectModel") == true)
        var builder = KeyedArchiveGraph.Builder()
        let root = builder.add("NSEntityDescription", fields: [:])
        #expect(error(builder.archive(root: root))?.code == .malformed)
        // Truncated: every prefix of a valid model is refused or read, never a crash.
        let valid = try model()
        for length in stride(from: 0, to: valid.count, by: 7) { _ = error(valid.prefix(length)) }
    }

    @Test func referencesOutOfRangeAndWrongShapesAreMalformed() throws {
        #expect(error(try model(entity: ["NSEntityName": .uid(9_999)]))?.code == .malformed)
        #expect(error(try model(entity: ["NSEntityName": .integer(3)]))?.code == .malformed)
        #expect(error(try model(entity: ["NSProperties": .uid(1)]))?.code == .malformed, "the model itself where a dictionary should be")
        #expect(error(try model(attribute: ["NSPropertyName": .uid(0)]))?.message.contains("no NSPropertyName") == true)
        #expect(error(try model(attributeClass: "NSRelationshipDescription"))?.message.contains("no destination") == true)
        let withoutEntities = try model { _ in ["NSEntities": .uid(7_777)] }
        #expect(error(withoutEntities)?.code == .malformed)
    }

    @Test func attributeTypesWithoutACounterpartAreLeftOutWithAWarning() throws {
        for (code, words) in [(Int64(0), "Undefined"), (2100, "composite"), (4242, "unknown NSAttributeType 4242")] {
            let version = try read(try model(attribute: ["NSAttributeType": .integer(code)]))
            #expect(version.model.entitiesByName["Note"]?.propertiesByName["title"] == nil)
            #expect(version.warnings.contains { $0.message.contains(words) }, "\(version.warnings)")
        }
        // A transient Undefined attribute is what Xcode compiles for "Undefined": it loads.
        let undefined = try read(try model(attribute: ["NSAttributeType": .integer(0), "NSIsTransient": .boolean(true)]))
        #expect(undefined.model.entitiesByName["Note"]?.attributesByName["title"]?.attributeType == .undefined)
        #expect(undefined.model.entitiesByName["Note"]?.attributesByName["title"]?.isTransient == true)
        let composite = try read(try model(attributeClass: "NSCompositeAttributeDescription"))
        #expect(composite.model.entitiesByName["Note"]?.propertiesByName["title"] == nil)
        let unknown = try read(try model(attributeClass: "NSExpressionDescription"))
        #expect(unknown.warnings.contains { $0.message.contains("NSExpressionDescription") })
    }

    @Test func unknownKeysValuesThatDoNotFitAndUnreadablePredicatesAreWarnings() throws {
        let version = try read(try model(attribute: [
            "NSSomethingNew": .boolean(true), "NSDefaultValue": .string("not a number"), "NSAttributeType": .integer(200),
        ], entity: ["NSEntityFutureKey": .integer(1)]) { builder in
            // A template whose predicate is a class the reader does not translate.
            let entity = builder.add("NSEntityDescription", fields: ["NSEntityName": .uid(try builder.value("Note"))])
            let predicate = builder.add("NSBlockPredicate", superclasses: ["NSPredicate"], fields: [:])
            let request = builder.add("NSFetchRequest", fields: ["NSEntity": .uid(entity), "NSPredicate": .uid(predicate)])
            let name = try builder.value("blocky")
            return ["NSFetchRequestTemplates": .uid(builder.add("NSDictionary", fields: ["NS.keys": .array([.uid(name)]), "NS.objects": .array([.uid(request)])]))]
        })
        let messages = version.warnings.map(\.message)
        #expect(messages.contains { $0.contains("NSSomethingNew") })
        #expect(messages.contains { $0.contains("NSEntityFutureKey") })
        #expect(messages.contains { $0.contains("default value is not a Integer 32") })
        #expect(messages.contains { $0.contains("blocky") && $0.contains("left out") })
        #expect(version.model.entitiesByName["Note"]?.attributesByName["title"]?.defaultValue == .null)
        #expect(version.model.fetchRequestTemplatesByName.isEmpty)
        #expect(version.warnings.allSatisfy { $0.url == url })
    }

    @Test func aPropertyThatNamesAnUnrelatedEntityIsReadWithAWarning() throws {
        // NSEntity refers to the model (reference 1), neither the entity nor an ancestor.
        let version = try read(try model(attribute: ["NSEntity": .uid(1)]))
        #expect(version.model.entitiesByName["Note"]?.attributesByName["title"] != nil)
        #expect(version.warnings.contains { $0.message.contains("not an ancestor") }, "\(version.warnings)")
    }

    @Test func deeplyNestedPredicatesAreRefusedNotFollowed() throws {
        let version = try read(try model { builder in
            var predicate = builder.add("NSTruePredicate", superclasses: ["NSPredicate"], fields: [:])
            for _ in 0..<200 {
                let list = builder.add("NSArray", fields: ["NS.objects": .array([.uid(predicate)])])
                predicate = builder.add("NSCompoundPredicate", fields: ["NSCompoundPredicateType": .integer(0), "NSSubpredicates": .uid(list)])
            }
            let entity = builder.add("NSEntityDescription", fields: ["NSEntityName": .uid(try builder.value("Note"))])
            let request = builder.add("NSFetchRequest", fields: ["NSEntity": .uid(entity), "NSPredicate": .uid(predicate)])
            let name = try builder.value("deep")
            return ["NSFetchRequestTemplates": .uid(builder.add("NSDictionary", fields: ["NS.keys": .array([.uid(name)]), "NS.objects": .array([.uid(request)])]))]
        })
        #expect(version.warnings.contains { $0.message.contains("deep") && $0.message.contains("nests deeper") }, "\(version.warnings)")
    }

    @Test func anInconsistentModelIsAnInvalidModelError() throws {
        var builder = KeyedArchiveGraph.Builder()
        let root = builder.reserve()
        let entity = builder.reserve()
        // The entity is its own parent.
        builder.set(entity, "NSEntityDescription", fields: ["NSEntityName": .uid(try builder.value("Loop")), "NSSuperentity": .uid(entity)])
        let key = try builder.value("Loop")
        builder.set(root, "NSManagedObjectModel", fields: ["NSEntities": .uid(builder.add("NSDictionary", fields: ["NS.keys": .array([.uid(key)]), "NS.objects": .array([.uid(entity)])]))])
        let failure = error(builder.archive(root: root))
        #expect(failure?.code == .invalidModel)
        #expect(failure?.modelError != nil)
    }

    @Test func filesBeyondTheSizeLimitAreRefusedUnread() throws {
        let directory = try TemporaryDirectory()
        let huge = directory.file("Huge.mom")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: UInt64(CompiledModelReader.maxFileSize + 1))  // sparse
        try handle.close()
        let failure = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: huge) }
        #expect(failure.code == .tooLarge)
    }

    @Test func anOptimizedModelAloneAndAnXcode3ModelSayWhyTheyAreNotRead() throws {
        let directory = try TemporaryDirectory()
        let omo = directory.file("Model.omo")
        try Data("momv2$".utf8).write(to: omo)
        let omoError = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: omo) }
        #expect(omoError.code == .unsupportedFormat)
        #expect(omoError.message.contains(".mom"))
        let xcode3 = directory.url.appendingPathComponent("Old.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: xcode3, withIntermediateDirectories: true)
        try Data("bplist00".utf8).write(to: xcode3.appendingPathComponent("elements"))
        let xcode3Error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: xcode3) }
        #expect(xcode3Error.code == .unsupportedFormat)
        #expect(xcode3Error.message.contains("XDUMLClassImp"))
    }
}
