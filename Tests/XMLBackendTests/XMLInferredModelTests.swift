import Foundation
import StoreCore
import StoreTestSupport
import XCTest
import XMLBackend

/// Inspection mode on XML stores: the model rebuilt from what each object declares.
final class XMLInferredModelTests: XCTestCase {
    func testAppleWrittenStoreGivesItsEntitiesTypesAndRelationships() throws {
        let source = CoreDataFixtures.root.appendingPathComponent("xmlstores/hexane360__atomlib/template.mslice")
        guard FileManager.default.fileExists(atPath: source.path) else { throw XCTSkip("the Core Data fixtures are not present") }
        let directory = try TemporaryDirectory()
        let url = directory.file("template.mslice")
        try FileManager.default.copyItem(at: source, to: url)
        let inferred = try InferredModel(xmlStoreAt: url)
        let model = inferred.model
        XCTAssertEqual(model.entities.map(\.name), ["Aberration", "Detector", "Microscope", "SimParameters", "Structure", "StructureAtom", "Unit"], "names as the metadata spells them")
        XCTAssertEqual(model.entitiesByName["Unit"]?.attributesByName["value"]?.attributeType, .integer32)
        XCTAssertEqual(model.entitiesByName["Detector"]?.attributesByName["dpc"]?.attributeType, .boolean)
        XCTAssertEqual(model.entitiesByName["SimParameters"]?.attributesByName["slicethickness"]?.attributeType, .float)
        let unit = try XCTUnwrap(model.entitiesByName["Aberration"]?.relationshipsByName["unit"])
        XCTAssertFalse(unit.isToMany)
        XCTAssertEqual(unit.destinationEntityName, "Unit")
        XCTAssertTrue(inferred.notes.contains { $0.contains("Structure.atoms has no idrefs") }, "\(inferred.notes)")
        XCTAssertEqual(inferred.metadata["NSStoreUUID"], "D1E2667A-3268-45DB-8AA0-DF69A046A0F1")
        XCTAssertEqual(inferred.metadata["NSStoreModelVersionIdentifiers"], #"["0.9"]"#)

        let container = PersistentContainer(name: "Inspect", managedObjectModel: model)
        container.persistentStoreDescriptions = [.inspecting(url, type: .xml)]
        XMLStore.register()
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let aberrations = try context.fetch(FetchRequest<ManagedObject>(entityName: "Aberration", predicate: .format("unit.name == %@", "Å")))
            XCTAssertEqual(Set(try aberrations.map { try $0.value(forKey: "name") as? String }), ["Defocus", "Two-fold Stig"])
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Detector")), 3)
        }
    }

    func testAnAttributeWrittenWithSeveralTypesGetsOneThatReadsThemAll() throws {
        let text = XMLTestFiles.store(objects: """
                <object type="POST" id="z1"><attribute name="views" type="int16">3</attribute></object>
                <object type="POST" id="z2"><attribute name="views" type="int16">2.5</attribute></object>
            """)
        let directory = try TemporaryDirectory()
        let url = directory.file("Store.xml")
        try Data(text.utf8).write(to: url)
        let inferred = try InferredModel(xmlStoreAt: url)
        XCTAssertEqual(inferred.model.entitiesByName["POST"]?.attributesByName["views"]?.attributeType, .double)
    }

    func testSidesOfSelfRelationshipsArePairedByTheObjectsTheyHold() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toOne("parent", destination: "Folder", inverse: "children")
                .toMany("children", destination: "Folder", inverse: "parent")
                .toMany("favorites", destination: "Folder", inverse: "favoriteOf")
                .toMany("favoriteOf", destination: "Folder", inverse: "favorites")
            }
        }
        let directory = try TemporaryDirectory()
        let url = directory.file("Folders.xml")
        let context = try TestStack.xmlContainer(model, at: url).newBackgroundContext()
        try context.performAndWait {
            let entity = try XCTUnwrap(model.entitiesByName["Folder"])
            let root = ManagedObject(entity: entity, insertInto: context)
            let a = ManagedObject(entity: entity, insertInto: context)
            let b = ManagedObject(entity: entity, insertInto: context)
            try a.setValue(root, forKey: "parent")
            try b.setValue(root, forKey: "parent")
            try root.setValue(Set([a]), forKey: "favorites")
            try b.setValue(Set([a, root]), forKey: "favorites")
            try context.save()
        }
        let folder = try XCTUnwrap(InferredModel(xmlStoreAt: url).model.entitiesByName["Folder"])
        XCTAssertEqual(folder.relationshipsByName["parent"]?.inverseName, "children")
        XCTAssertEqual(folder.relationshipsByName["children"]?.inverseName, "parent")
        XCTAssertEqual(folder.relationshipsByName["favorites"]?.inverseName, "favoriteOf")
        XCTAssertEqual(folder.relationships.count, 4, "no made-up inverses: \(folder.relationships.map(\.name))")
    }

    func testAFileThatIsNotAnXMLStoreIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Store.xml")
        try Data("<?xml version=\"1.0\"?><notes><note/></notes>".utf8).write(to: url)
        XCTAssertThrowsError(try InferredModel(xmlStoreAt: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .wrongFormat)
        }
    }
}
