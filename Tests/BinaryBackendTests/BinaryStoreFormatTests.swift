@testable import BinaryBackend
import Foundation
import StoreCore
import XCTest

/// The format on its own: every value and relationship kind written and read back exactly.
final class BinaryStoreFormatTests: XCTestCase {
    private let format = BinaryStoreFormat()

    /// A file of specimens (one per edge row), labels, ordered pages and shapes of two sub-entities.
    static func specimenFile(model: ManagedObjectModel) -> AtomicStoreFile {
        var file = AtomicStoreFile(metadata: StoreMetadata(
            storeUUID: "5B1C6F5E-7A0E-4B8E-9D2A-1C3E5F7A9B0D", storeType: "binary",
            modelVersionHashes: model.entityVersionHashesByName, userInfo: ["app": "test", "build": 12]))
        let storeID = file.metadata.storeUUID
        var objects: [AtomicStoreObject] = []
        for (row, values) in SpecimenModel.edgeRows.enumerated() {
            var object = AtomicStoreObject(entityName: "Specimen", primaryKey: Int64(row + 1), attributes: values)
            if row > 0 {
                object.relationships["parent"] = [1]
                object.attributes["reference"] = .objectID(ManagedObjectID(entityName: "Label", storeIdentifier: storeID, primaryKey: 100))
            }
            objects.append(object)
        }
        objects[0].relationships["children"] = (2...Int64(SpecimenModel.edgeRows.count)).map { $0 }
        objects[0].relationships["labels"] = [100, 101]
        objects[1].relationships["labels"] = [100]
        objects[0].relationships["pages"] = [203, 201, 202]
        objects[0].relationships["shapes"] = [300, 301]
        objects.append(AtomicStoreObject(entityName: "Label", primaryKey: 100, attributes: ["name": "red"], relationships: ["specimens": [1, 2]]))
        objects.append(AtomicStoreObject(entityName: "Label", primaryKey: 101, attributes: ["name": "blue"], relationships: ["specimens": [1]]))
        for key in Int64(201)...203 {
            objects.append(AtomicStoreObject(entityName: "Page", primaryKey: key, attributes: ["number": .integer(key - 200)], relationships: ["specimen": [1]]))
        }
        objects.append(AtomicStoreObject(entityName: "Circle", primaryKey: 300, attributes: ["name": "c", "radius": 2.5], relationships: ["owner": [1]]))
        objects.append(AtomicStoreObject(entityName: "Square", primaryKey: 301, attributes: ["name": "s", "side": 4], relationships: ["owner": [1]]))
        file.objects = objects
        file.nextPrimaryKey = 302
        return file
    }

    func testEveryValueAndRelationshipRoundTripsExactly() throws {
        let model = try SpecimenModel.make()
        let file = Self.specimenFile(model: model)
        let data = try format.write(file, model: model)
        let read = try format.read(data, model: model)
        XCTAssertEqual(differences(file.objects, read.objects), [])
        XCTAssertEqual(read.nextPrimaryKey, 302)
        XCTAssertEqual(read.metadata.storeUUID, file.metadata.storeUUID)
        XCTAssertEqual(read.metadata.modelVersionHashes, file.metadata.modelVersionHashes)
        XCTAssertEqual(read.metadata.userInfo, file.metadata.userInfo)
        XCTAssertEqual(read.preservedMetadata["NSStoreType"], "Binary")
        // The ordered to-many keeps its order, and the engine accepts what was read.
        XCTAssertEqual(read.objects.first { $0.primaryKey == 1 }?.relationships["pages"], [203, 201, 202])
        XCTAssertNoThrow(try SnapshotGraph(file: read, model: model, storeIdentifier: read.metadata.storeUUID, url: nil))
    }

    func testFloatsStayFloatsAndNilIsDistinctFromEveryValue() throws {
        let model = try SpecimenModel.make()
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary"))
        // Values that a naive encoding would confuse with nil: empty string, empty data, zero, false.
        file.objects = [
            AtomicStoreObject(entityName: "Specimen", primaryKey: 1, attributes: ["text": "", "blob": .data(Data()), "i64": 0, "flag": false, "float": .float(0.1)]),
            AtomicStoreObject(entityName: "Specimen", primaryKey: 2, attributes: ["text": .null, "blob": .null, "i64": .null, "flag": .null, "float": .null]),
        ]
        let read = try format.read(try format.write(file, model: model), model: model)
        let first = try XCTUnwrap(read.objects.first { $0.primaryKey == 1 })
        let second = try XCTUnwrap(read.objects.first { $0.primaryKey == 2 })
        XCTAssertEqual(first.attributes, ["text": "", "blob": .data(Data()), "i64": 0, "flag": false, "float": .float(0.1)])
        XCTAssertEqual(second.attributes, [:])
    }

    func testCanonicallyEquivalentStringsKeepTheirOwnScalars() throws {
        let model = try SpecimenModel.make()
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary"))
        file.objects = [
            AtomicStoreObject(entityName: "Label", primaryKey: 1, attributes: ["name": .string("caf\u{E9}")]),
            AtomicStoreObject(entityName: "Label", primaryKey: 2, attributes: ["name": .string("cafe\u{301}")]),
        ]
        let read = try format.read(try format.write(file, model: model), model: model)
        let names = read.objects.sorted { $0.primaryKey < $1.primaryKey }.compactMap { object -> [UInt32]? in
            guard case .string(let name)? = object.attributes["name"] else { return nil }
            return name.unicodeScalars.map(\.value)
        }
        XCTAssertEqual(names, [[0x63, 0x61, 0x66, 0xE9], [0x63, 0x61, 0x66, 0x65, 0x301]])
    }

    func testAColumnOfMixedKindsRoundTrips() throws {
        let model = try SpecimenModel.make()
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary"))
        file.objects = [
            AtomicStoreObject(entityName: "Specimen", primaryKey: 1, attributes: ["double": .double(2.5)]),
            AtomicStoreObject(entityName: "Specimen", primaryKey: 2, attributes: ["double": .integer(3)]),
            AtomicStoreObject(entityName: "Specimen", primaryKey: 3, attributes: ["double": .float(1.5)]),
            AtomicStoreObject(entityName: "Specimen", primaryKey: 4),
        ]
        let read = try format.read(try format.write(file, model: model), model: model)
        XCTAssertEqual(differences(file.objects, read.objects), [])
    }

    func testOutputIsDeterministicAndEmptyStoresRoundTrip() throws {
        let model = try SpecimenModel.make()
        let file = Self.specimenFile(model: model)
        XCTAssertEqual(try format.write(file, model: model), try format.write(file, model: model))
        let empty = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary"), nextPrimaryKey: 1)
        let read = try format.read(try format.write(empty, model: model), model: model)
        XCTAssertEqual(read.objects, [])
        XCTAssertEqual(read.metadata.storeUUID, empty.metadata.storeUUID)
    }

    func testSharedStringsAreWrittenOnce() throws {
        let model = try SpecimenModel.make()
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary"))
        let text = String(repeating: "a shared and rather long string ", count: 8)
        file.objects = (1...1_000).map { AtomicStoreObject(entityName: "Label", primaryKey: $0, attributes: ["name": .string(text)]) }
        let data = try format.write(file, model: model)
        XCTAssertLessThan(data.count, 20_000, "1,000 copies of a 256-byte string (256 kB) are stored once")
        XCTAssertEqual(try format.read(data, model: model).objects.count, 1_000)
    }
}
