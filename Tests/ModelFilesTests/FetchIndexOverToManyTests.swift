import Foundation
import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Trio's model (nightscout/Trio) declares a fetch index over a to-many relationship
/// (`Forecast.byValue` on `forecastValues`), which Core Data loads. No column holds a to-many, so
/// the model warns and the SQL store leaves the element out — an index with nothing else is not
/// made, one with other elements indexes those — instead of refusing to create the store.
final class FetchIndexOverToManyTests: XCTestCase {
    private static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Forecast" representedClassName="Forecast" syncable="YES">
                <attribute name="date" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
                <relationship name="forecastValues" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="ForecastValue" inverseName="forecast" inverseEntity="ForecastValue"/>
                <fetchIndex name="byDate">
                    <fetchIndexElement property="date" type="Binary" order="descending"/>
                </fetchIndex>
                <fetchIndex name="byValue">
                    <fetchIndexElement property="forecastValues" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byDateAndValue">
                    <fetchIndexElement property="date" type="Binary" order="ascending"/>
                    <fetchIndexElement property="forecastValues" type="Binary" order="ascending"/>
                    <fetchIndexElement property="scratch" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            <entity name="ForecastValue" representedClassName="ForecastValue" syncable="YES">
                <attribute name="value" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <relationship name="forecast" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Forecast" inverseName="forecastValues" inverseEntity="Forecast"/>
            </entity>
        </model>
        """

    func testIndexElementsOverAToManyOrTransientAreWarnedAboutAndLeftOutOfSQLite() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("Trio.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.contents.utf8).write(to: folder.appendingPathComponent("contents"))
        let version = try ModelVersion(contentsOf: folder)
        let warned = version.model.warnings.filter { $0.code == .invalidIndex }.map(\.key)
        XCTAssertEqual(warned.sorted { ($0 ?? "") < ($1 ?? "") }, ["forecastValues", "forecastValues", "scratch"], "\(version.model.warnings)")

        let url = directory.file("Trio.sqlite")
        let container = try TestStack.sqliteContainer(version.model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let forecast = try context.insertNewObject(forEntityName: "Forecast")
            try forecast.setValue(Date(timeIntervalSinceReferenceDate: 1000), forKey: "date")
            let value = try context.insertNewObject(forEntityName: "ForecastValue")
            try value.setValue(forecast, forKey: "forecast")
            try context.save()
        }
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }

        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var indexes: [String: String] = [:]
        try connection.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZFORECAST' AND sql IS NOT NULL") {
            indexes[$0.string(at: 0) ?? ""] = $0.string(at: 1) ?? ""
        }
        XCTAssertNotNil(indexes["Z_Forecast_byDate"], "\(indexes)")
        XCTAssertNil(indexes["Z_Forecast_byValue"], "an index with no column left is not made: \(indexes)")
        let both = try XCTUnwrap(indexes["Z_Forecast_byDateAndValue"], "\(indexes)")
        XCTAssertTrue(both.contains("ZDATE") && !both.contains("FORECASTVALUES") && !both.contains("SCRATCH"), both)

        let again = try TestStack.sqliteContainer(version.model, at: url)
        let reader = again.newBackgroundContext()
        try reader.performAndWait {
            let forecast = try XCTUnwrap(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Forecast")).first)
            XCTAssertEqual((try forecast.value(forKey: "forecastValues") as? Set<ManagedObject>)?.count, 1)
        }
    }
}
