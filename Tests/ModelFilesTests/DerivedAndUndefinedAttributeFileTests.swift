import Foundation
import ModelFiles
import StoreCore
import StoreTestSupport
import XCTest

/// Xcode's "Undefined" transient attributes (written without `attributeType`) and derived
/// attributes, read from a model file.
final class DerivedAndUndefinedAttributeFileTests: XCTestCase {
    private func version(_ text: String) throws -> ModelVersion {
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("Shop.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent("contents"))
        return try ModelVersion(contentsOf: folder)
    }

    func testAnUndefinedTransientAttributeLoadsAndHoldsAnyValue() throws {
        let version = try version("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Item" representedClassName="Item">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="scratch" optional="YES" transient="YES"/>
                    <attribute name="lost" optional="YES"/>
                </entity>
            </model>
            """)
        let item = try version.model.entity(named: "Item")
        XCTAssertEqual(item.attributesByName["scratch"]?.attributeType, .undefined)
        XCTAssertEqual(item.attributesByName["scratch"]?.isTransient, true)
        // Core Data allows Undefined only on transient attributes: a stored one is left out, with a warning.
        XCTAssertNil(item.attributesByName["lost"])
        XCTAssertEqual(version.warnings.count, 1, "\(version.warnings)")
        XCTAssertTrue(version.warnings.first?.message.contains("lost") == true)

        let context = try BackendStack(.memory, model: version.model).newContext()
        try context.performAndWait {
            let object = try context.insertNewObject(forEntityName: "Item")
            try object.setValue(42, forKey: "scratch")
            XCTAssertEqual(try object.value(forKey: "scratch") as? Int64, 42)
            try object.setValue("text", forKey: "scratch")
            XCTAssertEqual(try object.value(forKey: "scratch") as? String, "text")
            try context.save()
        }
    }

    func testDerivedAttributesAreResolvedAndUnknownOnesStoredAsGiven() throws {
        let version = try version("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Order" representedClassName="Order">
                    <attribute name="lineCount" attributeType="Integer 64" derived="YES" derivationExpression="lines.@count" usesScalarValueType="YES"/>
                    <attribute name="updated" attributeType="Date" derived="YES" derivationExpression="now()" usesScalarValueType="NO"/>
                    <attribute name="odd" optional="YES" attributeType="Double" derived="YES" derivationExpression="lines.@avg.price"/>
                    <relationship name="lines" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Line" inverseName="order" inverseEntity="Line"/>
                </entity>
                <entity name="Line" representedClassName="Line">
                    <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <relationship name="order" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Order" inverseName="lines" inverseEntity="Order"/>
                </entity>
            </model>
            """)
        let order = try version.model.entity(named: "Order")
        XCTAssertEqual(order.attributesByName["lineCount"]?.derivation, .count(relationship: "lines"))
        XCTAssertEqual(order.attributesByName["updated"]?.derivation, .now)
        XCTAssertNil(order.attributesByName["odd"]?.derivation)
        XCTAssertEqual(order.attributesByName["odd"]?.isDerived, false)
        XCTAssertEqual(version.warnings.map(\.line), [6], "\(version.warnings)")
    }
}
