import BinaryBackend
import Foundation
import StoreCore
import StoreTestSupport
import Synchronization
import XCTest
import XMLBackend

/// The atomic file form laid out by the entity, through every format: the XML and binary stores
/// read straight into the layout, a user's format works by name, and both keep sub-entities'
/// inherited values and ordered relationships across a save and a reopen.
final class AtomicLayoutTests: XCTestCase {
    /// Owners with an ordered list of shapes; a shape's `label` and `owner` are inherited by
    /// circles and squares.
    private static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Owner") {
                .attribute("name", .string)
                .toMany("shapes", destination: "Shape", inverse: "owner", ordered: true)
            }
            EntityDescription("Shape", isAbstract: true) {
                .attribute("label", .string)
                .toOne("owner", destination: "Owner", inverse: "shapes")
            }
            EntityDescription("Circle", parent: "Shape") {
                .attribute("radius", .double)
            }
            EntityDescription("Square", parent: "Shape") {
                .attribute("side", .integer64)
            }
        }
    }

    /// A format written by name, the way a user would, that records the objects the engine hands it.
    private final class RecordingFormat: AtomicStoreFormat {
        let inner = JSONStoreFormat()
        let written = Mutex<[AtomicStoreObject]>([])

        func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile {
            try inner.read(data, model: model)
        }

        func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data {
            written.withLock { $0 = file.objects }
            return try inner.write(file, model: model)
        }
    }

    private func open(_ url: URL, type: PersistentStoreType, model: ManagedObjectModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Shapes", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: type, url: url)]
        try container.loadPersistentStores()
        return container
    }

    private func saveShapes(in container: PersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue("ada", forKey: "name")
            let circle = try context.insertNewObject(forEntityName: "Circle")
            try circle.setValue("c", forKey: "label")
            try circle.setValue(2.5, forKey: "radius")
            let square = try context.insertNewObject(forEntityName: "Square")
            try square.setValue("s", forKey: "label")
            try square.setValue(Int64(4), forKey: "side")
            try owner.setValue([square, circle], forKey: "shapes")
            try context.save()
        }
    }

    /// What a reopened store holds: each shape's entity, inherited label, own value and owner,
    /// and the owner's shapes in order.
    private func contents(of container: PersistentContainer) throws -> [String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            var lines: [String] = []
            for name in ["Circle", "Square"] {
                for shape in try context.fetch(FetchRequest<ManagedObject>(entityName: name)) {
                    let label = try shape.value(forKey: "label") as? String ?? "nil"
                    let own = name == "Circle"
                        ? "\(try shape.value(forKey: "radius") as? Double ?? -1)" : "\(try shape.value(forKey: "side") as? Int64 ?? -1)"
                    let owner = try shape.value(forKey: "owner") as? ManagedObject
                    lines.append("\(name) \(label) \(own) \(try owner?.value(forKey: "name") as? String ?? "nil")")
                }
            }
            for owner in try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")) {
                let shapes = try owner.value(forKey: "shapes") as? [ManagedObject] ?? []
                lines.append("Owner \(try shapes.map { try $0.value(forKey: "label") as? String ?? "nil" })")
            }
            return lines
        }
    }

    func testEveryFormatKeepsSubEntitiesInheritedValuesAndOrder() throws {
        let model = try Self.makeModel()
        let recording = RecordingFormat()
        let userType = PersistentStoreType(rawValue: "recording-json")
        AtomicStore.register(userType, format: recording)
        XMLStore.register()
        BinaryStore.register()
        let expected = ["Circle c 2.5 ada", "Square s 4 ada", #"Owner ["s", "c"]"#]
        for type in [PersistentStoreType.xml, .binary, userType] {
            let directory = try TemporaryDirectory()
            let url = directory.file("Shapes.\(type.rawValue)")
            try saveShapes(in: try open(url, type: type, model: model))
            XCTAssertEqual(try contents(of: try open(url, type: type, model: model)), expected, "\(type.rawValue)")
        }
        // The engine handed the user's format objects laid out by the model's entities, which it
        // read by name; and it read back objects built by name.
        let written = recording.written.withLock { $0 }
        XCTAssertEqual(written.count, 3)
        let circle = try XCTUnwrap(written.first { $0.entityName == "Circle" })
        XCTAssertTrue(circle.entity === model.entitiesByName["Circle"])
        XCTAssertEqual(circle.attributes, ["label": "c", "radius": 2.5])
        let owner = try XCTUnwrap(written.first { $0.entityName == "Owner" })
        XCTAssertEqual(circle.relationships, ["owner": [owner.primaryKey]])
        XCTAssertEqual(owner.relationships["shapes"]?.count, 2)
    }

    func testFormatsReadStraightIntoTheLayoutOfSubEntities() throws {
        let model = try Self.makeModel()
        let circle = try model.entity(named: "Circle")
        let shape = try model.entity(named: "Shape")
        let label = try XCTUnwrap(shape.propertyIndexes["label"])
        let owner = try XCTUnwrap(shape.propertyIndexes["owner"])
        XCTAssertEqual(circle.propertyIndexes["label"], label, "a sub-entity keeps its parent's positions")
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "test", modelVersionHashes: model.entityVersionHashesByName))
        file.objects = [
            try AtomicStoreObject(entity: model.entity(named: "Owner"), primaryKey: 1, attributes: ["name": "ada"], relationships: ["shapes": [2]]),
            try AtomicStoreObject(entity: circle, primaryKey: 2, attributes: ["label": "c", "radius": 2.5], relationships: ["owner": [1]]),
        ]
        file.nextPrimaryKey = 3
        let formats: [any AtomicStoreFormat] = [XMLStoreFormat(), BinaryStoreFormat()]
        for format in formats {
            let read = try format.read(try format.write(file, model: model), model: model)
            let object = try XCTUnwrap(read.objects.first { $0.primaryKey == 2 }, "\(format)")
            XCTAssertTrue(object.entity === circle, "\(format): laid out by the entity")
            XCTAssertEqual(object[label], "c", "\(format)")
            XCTAssertEqual(object.targetKey(at: owner), 1, "\(format)")
            XCTAssertEqual(read.objects.sorted { $0.primaryKey < $1.primaryKey }, file.objects, "\(format)")
        }
    }

    func testAFileNamingAnUnknownPropertyIsRefusedAsBefore() throws {
        let model = try Self.makeModel()
        // By name through the binary format (which keeps the name) and the engine.
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary", modelVersionHashes: model.entityVersionHashesByName))
        file.objects = [AtomicStoreObject(entityName: "Circle", primaryKey: 1, attributes: ["label": "c", "colour": "red"])]
        let directory = try TemporaryDirectory()
        let url = directory.file("Shapes.binary")
        let bytes = try BinaryStoreFormat().write(file, model: model)
        try bytes.write(to: url)
        let request = PersistentStoreLoadRequest(description: PersistentStoreDescription(type: .binary, url: url), model: model)
        XCTAssertThrowsError(try AtomicStore(request, type: .binary, format: BinaryStoreFormat())) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownProperty)
            XCTAssertTrue("\(error)".contains("object 1 (Circle), 'colour': the model's Circle has no stored attribute of this name"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), bytes, "the file is unchanged")
        // The XML format refuses to write it, with the same code.
        XCTAssertThrowsError(try XMLStoreFormat().write(file, model: model)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownProperty)
            XCTAssertTrue("\(error)".contains("'colour'"), "\(error)")
        }
        // And the XML reader refuses a document naming it.
        let xml = """
            <?xml version="1.0"?>
            <database><databaseInfo><version>134481920</version><UUID>U</UUID><nextObjectID>2</nextObjectID></databaseInfo>
            <object type="CIRCLE" id="z1"><attribute name="colour" type="string">red</attribute></object></database>
            """
        XCTAssertThrowsError(try XMLStoreFormat().read(Data(xml.utf8), model: model)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownProperty)
            XCTAssertTrue("\(error)".contains("colour"), "\(error)")
        }
    }
}
