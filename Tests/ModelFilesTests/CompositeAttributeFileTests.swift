import Foundation
import ModelFiles
import StoreCore
import StoreTestSupport
import XCTest

/// Composite attributes as Xcode 15 writes them: `attributeType="Composite" composite="Name"` on
/// the attribute, and the elements in a model-level `<composite name="Name">`.
final class CompositeAttributeFileTests: XCTestCase {
    private func version(_ text: String) throws -> ModelVersion {
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("Quakes.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent("contents"))
        return try ModelVersion(contentsOf: folder)
    }

    func testACompositeAndANestedOneLoadWithTheirElements() throws {
        let version = try version("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22158.8" systemVersion="23A5257q" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Quake" representedClassName="Quake" syncable="YES" codeGenerationType="class">
                    <attribute name="code" optional="YES" attributeType="String"/>
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                </entity>
                <composite name="Magnitude">
                    <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="scale" optional="YES" attributeType="String"/>
                    <attribute name="measured" optional="YES" attributeType="Composite" composite="Measurement"/>
                </composite>
                <composite name="Measurement">
                    <attribute name="station" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                </composite>
            </model>
            """)
        XCTAssertEqual(version.warnings.map(\.message), [])
        let quake = try version.model.entity(named: "Quake")
        let magnitude = try XCTUnwrap(quake.compositeAttributesByName["magnitude"])
        XCTAssertEqual(magnitude.elements.map(\.name), ["richter", "scale", "measured"])
        XCTAssertEqual(quake.properties.map(\.name), ["code", "magnitude.richter", "magnitude.scale", "magnitude.measured.station"])
        XCTAssertEqual(quake.attributesByName["magnitude.richter"]?.defaultValue, .double(0))

        // The model works on SQLite, the one store type Core Data keeps composites in.
        let stack = try BackendStack(.sqlite, model: version.model)   // kept: it owns the store's directory
        let context = stack.newContext()
        try context.performAndWait {
            let object = try context.insertNewObject(forEntityName: "Quake")
            try object.setValue(["richter": 6.1, "measured": ["station": 3]], forKey: "magnitude")
            try context.save()
            let request = FetchRequest<ManagedObject>(entityName: "Quake", predicate: try StorePredicate(format: "magnitude.measured.station == 3 AND magnitude.richter > 6"))
            XCTAssertEqual(try context.count(for: request), 1)
        }
        withExtendedLifetime(stack) {}
    }

    func testACompositeThatContainsItselfIsAnErrorAndAMissingOneAWarning() throws {
        XCTAssertThrowsError(try version("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Quake" representedClassName="Quake">
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Loop"/>
                </entity>
                <composite name="Loop">
                    <attribute name="again" optional="YES" attributeType="Composite" composite="Loop"/>
                </composite>
            </model>
            """)) { error in
            XCTAssertEqual((error as? ModelFileError)?.code, .malformed, "\(error)")
            XCTAssertTrue("\(error)".contains("contains itself"), "\(error)")
        }
        let version = try version("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Quake" representedClassName="Quake">
                    <attribute name="code" optional="YES" attributeType="String"/>
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Nowhere"/>
                </entity>
            </model>
            """)
        XCTAssertEqual(try version.model.entity(named: "Quake").properties.map(\.name), ["code"])
        XCTAssertTrue(version.warnings.first?.message.contains("Nowhere") == true, "\(version.warnings)")
        XCTAssertTrue(version.warnings.first?.message.contains("magnitude") == true, "\(version.warnings)")
    }
}
