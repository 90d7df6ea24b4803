import Foundation
import StoreCore
import StoreTestSupport
import XCTest
import XMLBackend

/// The XML store Apple's Core Data wrote for pyMultislicer (`xmlstores/hexane360__atomlib/template.mslice`,
/// partly hand-edited: ids such as "ABF", a relationship without idrefs, a float written "1.0")
/// loads with a model built from what the file shows.
final class XMLAppleFixtureTests: XCTestCase {
    private static let fixture = "xmlstores/hexane360__atomlib/template.mslice"

    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Unit") {
                .attribute("value", .integer32)
                .attribute("name", .string)
                .toMany("aberrations", destination: "Aberration", inverse: "unit")
            }
            EntityDescription("Microscope") {
                .attribute("kv", .float)
                .attribute("aperture", .float)
            }
            EntityDescription("Aberration") {
                .attribute("name", .string)
                .attribute("n", .integer16)
                .attribute("m", .integer16)
                .attribute("cnmb", .float)
                .attribute("cnma", .float)
                .toOne("unit", destination: "Unit", inverse: "aberrations")
            }
            EntityDescription("SimParameters") {
                for name in ["realspace", "pacbed", "overrideslices", "includetds", "cbed", "saveSlices"] { AttributeDescription(name: name, type: .boolean) }
                for name in ["wavesamples", "thermalconfigs", "numscany", "numscanx", "numsaves"] { AttributeDescription(name: name, type: .integer16) }
                for name in ["temperature", "slicethickness", "inty", "intx", "finy", "finx"] { AttributeDescription(name: name, type: .float) }
            }
            EntityDescription("Structure") {
                for name in ["tilty", "tiltx", "aparam", "bparam", "cparam"] { AttributeDescription(name: name, type: .float) }
                for name in ["repeatc", "repeatb", "repeata"] { AttributeDescription(name: name, type: .integer16) }
                RelationshipDescription(name: "atoms", destinationEntityName: "StructureAtom", inverseName: "structure", isToMany: true)
            }
            EntityDescription("StructureAtom") {
                .toOne("structure", destination: "Structure", inverse: "atoms")
            }
            EntityDescription("Detector") {
                .attribute("outerangle", .float)
                .attribute("innerangle", .float)
                .attribute("dpc", .boolean)
            }
        }
    }

    /// A copy of the fixture in `directory`, or `nil` (test skipped) when the fixtures are absent.
    private func copyOfFixture(in directory: TemporaryDirectory) throws -> URL {
        let source = CoreDataFixtures.root.appendingPathComponent(Self.fixture)
        guard FileManager.default.fileExists(atPath: source.path) else { throw XCTSkip("the Core Data fixtures are not present") }
        let copy = directory.file("template.mslice")
        try FileManager.default.copyItem(at: source, to: copy)
        return copy
    }

    func testAppleWrittenXMLStoreLoadsWithItsValues() throws {
        let directory = try TemporaryDirectory()
        let url = try copyOfFixture(in: directory)
        let original = try Data(contentsOf: url)
        let model = try model()
        let container = try TestStack.xmlContainer(model, at: url) { $0.shouldMigrateStoreAutomatically = true }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let units = try context.fetch(FetchRequest<ManagedObject>(entityName: "Unit"))
            XCTAssertEqual(units.count, 3)
            let angstrom = try XCTUnwrap(units.first { (try? $0.value(forKey: "name") as? String) == "Å" })
            XCTAssertEqual(try angstrom.value(forKey: "value") as? Int64, 1)
            XCTAssertEqual(angstrom.objectID.primaryKey, 106)
            // The file holds only the to-one side (Aberration.unit), as written.
            let aberrations = try context.fetch(FetchRequest<ManagedObject>(entityName: "Aberration"))
            let inAngstrom = try aberrations.filter { try ($0.value(forKey: "unit") as? ManagedObject)?.objectID == angstrom.objectID }
            XCTAssertEqual(Set(try inAngstrom.map { try $0.value(forKey: "name") as? String }), ["Defocus", "Two-fold Stig"])

            let parameters = try XCTUnwrap(context.fetch(FetchRequest<ManagedObject>(entityName: "SimParameters")).first)
            XCTAssertEqual(try parameters.value(forKey: "slicethickness") as? Float, 1.0)
            XCTAssertEqual(try parameters.value(forKey: "wavesamples") as? Int64, 1024)
            XCTAssertEqual(try parameters.value(forKey: "saveSlices") as? Bool, true)
            XCTAssertEqual(try parameters.value(forKey: "realspace") as? Bool, false)

            let structure = try XCTUnwrap(context.fetch(FetchRequest<ManagedObject>(entityName: "Structure")).first)
            XCTAssertEqual(try structure.value(forKey: "aparam") as? Float, 35.95809669)
            XCTAssertEqual((try structure.value(forKey: "atoms") as? Set<ManagedObject>)?.count, 0)

            // "ABF", "HAADF" and "LAADF" get keys above every z<n> and nextObjectID (118).
            let detectors = try context.fetch(FetchRequest<ManagedObject>(entityName: "Detector"))
            XCTAssertEqual(detectors.compactMap(\.objectID.primaryKey).sorted(), [118, 119, 120])
            let abf = try XCTUnwrap(detectors.first { $0.objectID.primaryKey == 118 })
            XCTAssertEqual(try abf.value(forKey: "outerangle") as? Float, 30)
            XCTAssertEqual(try abf.value(forKey: "dpc") as? Bool, true)
        }
        XCTAssertEqual(try Data(contentsOf: url), original, "loading never writes")
        let metadata = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first?.metadata)
        XCTAssertEqual(metadata.storeUUID, "D1E2667A-3268-45DB-8AA0-DF69A046A0F1")
    }

    func testAppleWrittenStoreWritesBackWithItsMetadataAndReadsAgain() throws {
        let directory = try TemporaryDirectory()
        let url = try copyOfFixture(in: directory)
        let model = try model()
        let file = try XMLStoreFormat().read(Data(contentsOf: url), model: model)
        XCTAssertEqual(file.objects.count, 12)
        XCTAssertEqual(file.nextPrimaryKey, 121)
        let written = try XMLStoreFormat().write(file, model: model)
        let again = try XMLStoreFormat().read(written, model: model)
        XCTAssertEqual(again.objects, file.objects)
        let text = String(decoding: written, as: UTF8.self)
        XCTAssertTrue(text.contains("<key>NSPersistenceFrameworkVersion</key>"), "Core Data's own metadata keys are kept")
        XCTAssertTrue(text.contains("<integer>977</integer>"))
        XCTAssertTrue(text.contains(#"<object type="DETECTOR" id="z118">"#))
    }
}
