import Foundation
import StoreCore
import Stowage
import StoreTestSupport
import XCTest

/// Xcode's `.xcmappingmodel` source (`xcmapping.xml`, a Core Data XML store of Xcode's editing
/// objects with archived value expressions) read and carried out by the migration manager, and
/// found beside a model package so a store migrates with it on load.
final class MappingModelFileTests: XCTestCase {
    typealias Policy = MappingModelMigrationTests.SplitNamePolicy

    /// The file Xcode would write for ``MappingModelMigrationTests/mapping()`` (without its
    /// policy and the function that needs it when `withPolicy` is false).
    static func xcmapping(withPolicy: Bool = true) throws -> String {
        func archived(_ format: String) throws -> String {
            try CompiledModelArchiver.archive(try StoreExpression(format: format)).base64EncodedString()
        }
        let policy = withPolicy ? """
            <attribute name="mappingtypename" type="string">Custom</attribute>
            <attribute name="migrationpolicyclassname" type="string">People.SplitNamePolicy</attribute>
            """ : ""
        return """
        <?xml version="1.0" standalone="yes"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
        <database>
            <databaseInfo><version>134481920</version><UUID>5C3E0A4B-1F7A-4C55-9D7C-2B0B8E6A1D10</UUID><nextObjectID>109</nextObjectID></databaseInfo>
            <object type="XDDEVMAPPINGMODEL" id="z101">
                <attribute name="sourcemodelpath" type="string">People.xcdatamodeld/People.xcdatamodel</attribute>
                <attribute name="destinationmodelpath" type="string">People.xcdatamodeld/People 2.xcdatamodel</attribute>
                <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z103 z102"></relationship>
            </object>
            <object type="XDDEVENTITYMAPPING" id="z102">
                <attribute name="name" type="string">PersonToHuman</attribute>
                <attribute name="sourcename" type="string">Person</attribute>
                <attribute name="destinationname" type="string">Human</attribute>
                <attribute name="mappingnumber" type="int16">1</attribute>
                \(policy)
                <attribute name="autogenerateexpression" type="bool">1</attribute>
                <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="\(withPolicy ? "z104 z105" : "z104")"></relationship>
                <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z106"></relationship>
            </object>
            <object type="XDDEVATTRIBUTEMAPPING" id="z104">
                <attribute name="name" type="string">ageInMonths</attribute>
                <attribute name="valueexpressiondata" type="binary">\(try archived("$source.age * 12"))</attribute>
            </object>
            <object type="XDDEVATTRIBUTEMAPPING" id="z105">
                <attribute name="name" type="string">initials</attribute>
                <attribute name="valueexpressiondata" type="binary">\(try archived("FUNCTION($entityPolicy, 'initials:', $source.name)"))</attribute>
            </object>
            <object type="XDDEVRELATIONSHIPMAPPING" id="z106">
                <attribute name="name" type="string">animals</attribute>
                <attribute name="sourcekeypath" type="string">pets</attribute>
                <attribute name="autogenerateexpression" type="bool">1</attribute>
            </object>
            <object type="XDDEVENTITYMAPPING" id="z103">
                <attribute name="name" type="string">PetToAnimal</attribute>
                <attribute name="sourcename" type="string">Pet</attribute>
                <attribute name="destinationname" type="string">Animal</attribute>
                <attribute name="mappingnumber" type="int16">2</attribute>
                <attribute name="sourcefilterpredicatestring" type="string">name != "Ghost"</attribute>
                <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z107"></relationship>
                <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z108"></relationship>
            </object>
            <object type="XDDEVATTRIBUTEMAPPING" id="z107">
                <attribute name="name" type="string">name</attribute>
                <attribute name="valueexpressiondata" type="binary">\(try archived("$source.name"))</attribute>
            </object>
            <object type="XDDEVRELATIONSHIPMAPPING" id="z108">
                <attribute name="name" type="string">keeper</attribute>
                <attribute name="sourcekeypath" type="string">owner</attribute>
            </object>
        </database>
        """
    }

    static func writeMappingModel(in directory: URL, withPolicy: Bool = true) throws -> URL {
        let package = directory.appendingPathComponent("People1to2.xcmappingmodel", isDirectory: true)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data(try xcmapping(withPolicy: withPolicy).utf8).write(to: package.appendingPathComponent("xcmapping.xml"))
        return package
    }

    func testAMappingModelFileReadsAndMigratesAStore() throws {
        EntityMigrationPolicy.register(Policy.self, named: "SplitNamePolicy")
        let directory = try TemporaryDirectory()
        let v1 = try MappingModelMigrationTests.v1(), v2 = try MappingModelMigrationTests.v2()
        let mapping = try MappingModel(contentsOf: try Self.writeMappingModel(in: directory.url), sourceModel: v1, destinationModel: v2)
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["PersonToHuman", "PetToAnimal"], "in mappingnumber order")
        XCTAssertEqual(mapping.entityMappings.map(\.mappingType), [.custom, .transform])
        XCTAssertEqual(mapping.entityMappings[0].entityMigrationPolicyClassName, "People.SplitNamePolicy")
        XCTAssertEqual(mapping.entityMappings[1].sourcePredicate, try StorePredicate(format: "name != 'Ghost'"))
        XCTAssertEqual(mapping.entityMappings[0].attributeMappings[0].valueExpression, try StoreExpression(format: "$source.age * 12"))
        XCTAssertTrue(mapping.isMapping(fromSourceModel: v1, toDestinationModel: v2))
        XCTAssertFalse(mapping.isMapping(fromSourceModel: v2, toDestinationModel: v1))

        let store = directory.file("People.sqlite")
        let container = PersistentContainer(name: "People", managedObjectModel: v1)
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: store)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let ada = try context.insertNewObject(forEntityName: "Person")
            try ada.setValue("Ada Lovelace", forKey: "name")
            try ada.setValue(36, forKey: "age")
            for name in ["Tabby", "Ghost"] {
                let pet = try context.insertNewObject(forEntityName: "Pet")
                try pet.setValue(name, forKey: "name")
                try ada.add(pet, toRelationship: "pets")
            }
            try context.save()
        }
        for loaded in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(loaded) }

        try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: store, type: .sqlite, with: mapping)
        let migrated = PersistentContainer(name: "People", managedObjectModel: v2)
        migrated.persistentStoreDescriptions = [PersistentStoreDescription(url: store)]
        try migrated.loadPersistentStores()
        let reader = migrated.newBackgroundContext()
        try reader.performAndWait {
            let human = try XCTUnwrap(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Human")).first)
            XCTAssertEqual(try human.value(forKey: "initials") as? String, "AL")
            XCTAssertEqual(try human.value(forKey: "ageInMonths") as? Int64, 432)
            XCTAssertEqual(try (human.value(forKey: "animals") as? [ManagedObject])?.map { try $0.value(forKey: "name") as? String }, ["Tabby"])
        }
    }

    func testAFileThatIsNotAMappingModelOrHasAnUnreadableExpressionIsRefused() throws {
        let directory = try TemporaryDirectory()
        let other = directory.file("other.xml")
        try Data("<database><object type=\"XDDEVENTITYMAPPING\" id=\"z1\"/></database>".utf8).write(to: other)
        XCTAssertThrowsError(try MappingModel(contentsOf: other)) { error in
            XCTAssertEqual((error as? ModelFileError)?.code, .malformed)
        }
        let package = try Self.writeMappingModel(in: directory.url)
        let xml = package.appendingPathComponent("xcmapping.xml")
        let broken = try String(contentsOf: xml, encoding: .utf8).replacingOccurrences(of: "<attribute name=\"valueexpressiondata\" type=\"binary\">", with: "<attribute name=\"valueexpressiondata\" type=\"binary\">AAAA")
        try Data(broken.utf8).write(to: xml)
        XCTAssertThrowsError(try MappingModel(contentsOf: package)) { error in
            XCTAssertTrue("\(error)".contains("PersonToHuman.ageInMonths"), "\(error)")
        }
    }

    /// A V1 SQLite store holding one person, Grace Hopper, 85; closed.
    static func saveGraceHopper(with v1: ManagedObjectModel, in directory: TemporaryDirectory) throws -> URL {
        let store = directory.file("People.sqlite")
        let old = PersistentContainer(name: "People", managedObjectModel: v1)
        old.persistentStoreDescriptions = [PersistentStoreDescription(url: store)]
        try old.loadPersistentStores()
        let writer = old.newBackgroundContext()
        try writer.performAndWait {
            let grace = try writer.insertNewObject(forEntityName: "Person")
            try grace.setValue("Grace Hopper", forKey: "name")
            try grace.setValue(85, forKey: "age")
            try writer.save()
        }
        for loaded in old.persistentStoreCoordinator.persistentStores { try old.persistentStoreCoordinator.removePersistentStore(loaded) }
        return store
    }

    /// `People.xcdatamodeld` with the two versions of ``MappingModelMigrationTests`` (current: "People 2").
    static func writePeoplePackage(in directory: URL) throws -> URL {
        let package = directory.appendingPathComponent("People.xcdatamodeld", isDirectory: true)
        let versions = [
            "People": """
                <entity name="Person" representedClassName="Person"><attribute name="name" optional="YES" attributeType="String"/><attribute name="age" optional="YES" attributeType="Integer 16"/><relationship name="pets" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/></entity>
                <entity name="Pet" representedClassName="Pet"><attribute name="name" optional="YES" attributeType="String"/><relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="pets" inverseEntity="Person"/></entity>
                """,
            "People 2": """
                <entity name="Human" representedClassName="Human"><attribute name="firstName" optional="YES" attributeType="String"/><attribute name="lastName" optional="YES" attributeType="String"/><attribute name="initials" optional="YES" attributeType="String"/><attribute name="ageInMonths" optional="YES" attributeType="Integer 32"/><relationship name="animals" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="keeper" inverseEntity="Animal"/></entity>
                <entity name="Animal" representedClassName="Animal"><attribute name="name" optional="YES" attributeType="String"/><relationship name="keeper" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Human" inverseName="animals" inverseEntity="Human"/></entity>
                """,
        ]
        for (name, entities) in versions {
            let folder = package.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><model type=\"com.apple.IDECoreDataModeler.DataModel\">\(entities)</model>".utf8)
                .write(to: folder.appendingPathComponent("contents"))
        }
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>People 2.xcdatamodel</string></dict></plist>
            """.utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    func testAMappingModelBesideAPackageIsUsedWhenAStoreIsLoaded() throws {
        EntityMigrationPolicy.register(Policy.self, named: "SplitNamePolicy")
        let directory = try TemporaryDirectory()
        let package = try Self.writePeoplePackage(in: directory.url)
        _ = try Self.writeMappingModel(in: directory.url)

        let bundle = try ManagedObjectModelBundle(contentsOf: package)
        XCTAssertEqual(bundle.packageWarnings.map(\.message), [])
        let v1 = try XCTUnwrap(bundle.version(named: "People")?.model)
        let store = try Self.saveGraceHopper(with: v1, in: directory)

        let current = try ManagedObjectModel(contentsOf: package)
        XCTAssertEqual(current.migrationMappingModels.count, 1)
        let container = PersistentContainer(name: "People", managedObjectModel: current)
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: store)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let human = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Human")).first)
            XCTAssertEqual(try human.value(forKey: "initials") as? String, "GH", "the mapping's expression, not an inferred mapping (which cannot map Person to Human)")
            XCTAssertEqual(try human.value(forKey: "lastName") as? String, "Hopper")
        }
    }
}
