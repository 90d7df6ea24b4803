@testable import BinaryBackend
import Foundation
import StoreCore
import XCTest

/// Our files in Foundation's `PropertyListSerialization` (our files are trusted: DESIGN.md), and
/// a file of the same shape written by Foundation in ours.
final class BinaryStoreInteropTests: XCTestCase {
    private let format = BinaryStoreFormat()

    func testFoundationReadsOurFilesAsTheDocumentedShape() throws {
        let model = try SpecimenModel.make()
        let file = BinaryStoreFormatTests.specimenFile(model: model)
        let data = try format.write(file, model: model)
        var plistFormat = PropertyListSerialization.PropertyListFormat.xml
        let top = try XCTUnwrap(try PropertyListSerialization.propertyList(from: data, options: [], format: &plistFormat) as? [String: Any])
        XCTAssertEqual(plistFormat, .binary)
        XCTAssertEqual(top["format"] as? String, "Stowage.BinaryStore")
        XCTAssertEqual((top["version"] as? NSNumber)?.int64Value, 1)
        XCTAssertEqual(top["storeUUID"] as? String, file.metadata.storeUUID)
        XCTAssertEqual((top["nextObjectID"] as? NSNumber)?.int64Value, 302)
        let metadata = try XCTUnwrap(top["metadata"] as? [String: Any])
        XCTAssertEqual(metadata["NSStoreType"] as? String, "Binary")
        XCTAssertEqual(metadata["app"] as? String, "test")
        let entities = try XCTUnwrap(top["entities"] as? [String: Any])
        XCTAssertEqual(Set(entities.keys), ["Specimen", "Label", "Page", "Circle", "Square"])
        let specimen = try XCTUnwrap(entities["Specimen"] as? [String: Any])
        let keys = try XCTUnwrap(specimen["keys"] as? [NSNumber])
        XCTAssertEqual(keys.map(\.int64Value), (1...Int64(SpecimenModel.edgeRows.count)).map { $0 })
        let attributes = try XCTUnwrap(specimen["attributes"] as? [String: [String: Any]])
        let i64 = try XCTUnwrap(attributes["i64"]?["values"] as? [Any])
        XCTAssertEqual(attributes["i64"]?["type"] as? String, "integer")
        XCTAssertEqual((i64[0] as? NSNumber)?.int64Value, .max)
        XCTAssertEqual((i64[1] as? NSNumber)?.int64Value, .min)
        XCTAssertEqual((i64[5] as? [Any])?.count, 0, "nil is the empty array")
        let texts = try XCTUnwrap(attributes["text"]?["values"] as? [Any])
        XCTAssertEqual(texts[1] as? String, "nul\u{0}inside \u{1F600} \u{10FFFF} 漢字")
        let blobs = try XCTUnwrap(attributes["blob"]?["values"] as? [Any])
        XCTAssertEqual((blobs[1] as? Data)?.count, 300_000)
        let dates = try XCTUnwrap(attributes["when"]?["values"] as? [Any])
        XCTAssertEqual((dates[0] as? Date)?.timeIntervalSinceReferenceDate, -63_114_076_800.000_001)
        let relationships = try XCTUnwrap(specimen["relationships"] as? [String: [Any]])
        XCTAssertEqual((relationships["pages"]?[0] as? [NSNumber])?.map(\.int64Value), [203, 201, 202])
        XCTAssertEqual((relationships["parent"]?[1] as? NSNumber)?.int64Value, 1)
    }

    func testWeReadAFileOfTheSameShapeWrittenByFoundation() throws {
        let model = try SpecimenModel.make()
        let uuid = UUID(uuid: (9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6))
        let uuidBytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
        let when = Date(timeIntervalSinceReferenceDate: 123.456)
        func column(_ type: String, _ values: [Any]) -> [String: Any] { ["type": type, "values": values] }
        let top: [String: Any] = [
            "format": "Stowage.BinaryStore", "version": 1, "storeUUID": "F00D", "nextObjectID": 20,
            "metadata": ["NSStoreType": "Binary", "NSStoreUUID": "F00D", "owner": "foundation"],
            "entities": [
                "Specimen": [
                    "keys": [1, 2],
                    "attributes": [
                        "i64": column("integer", [Int64.max, [Any]()]),
                        "double": column("double", [Double.infinity, -0.5]),
                        "float": column("float", [Float(0.1), [Any]()]),
                        "decimal": column("decimal", ["12.345", "-1e-5"]),
                        "text": column("string", ["plain", "\u{1F600} \u{0}"]),
                        "flag": column("boolean", [true, false]),
                        "when": column("date", [when, [Any]()]),
                        "blob": column("data", [Data([1, 2]), Data()]),
                        "uuid": column("uuid", [uuidBytes, [Any]()]),
                        "link": column("uri", ["https://example.org/x", [Any]()]),
                        "i16": column("mixed", [["integer", 7], [Any]()]),
                    ],
                    "relationships": ["labels": [[10, 11], [Any]()], "parent": [[Any](), 1], "pages": [[12], [Any]()]],
                ],
                "Label": ["keys": [10, 11], "attributes": ["name": column("string", ["a", "b"])], "relationships": [String: Any]()],
                "Page": ["keys": [12], "attributes": [String: Any](), "relationships": ["specimen": [1]]],
            ],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: top, format: .binary, options: 0)
        let file = try format.read(data, model: model)
        let objects = Dictionary(uniqueKeysWithValues: file.objects.map { ($0.primaryKey, $0) })
        XCTAssertEqual(file.nextPrimaryKey, 20)
        XCTAssertEqual(file.metadata.storeUUID, "F00D")
        XCTAssertEqual(file.metadata.userInfo["owner"], "foundation")
        let first = try XCTUnwrap(objects[1])
        XCTAssertEqual(first.attributes, [
            "i64": .integer(.max), "double": .double(.infinity), "float": .float(0.1), "decimal": .decimal(Decimal(string: "12.345") ?? 0),
            "text": "plain", "flag": true, "when": .date(when), "blob": .data(Data([1, 2])), "uuid": .uuid(uuid),
            "link": .uri(URL(string: "https://example.org/x") ?? URL(fileURLWithPath: "/")), "i16": 7,
        ])
        XCTAssertEqual(first.relationships, ["labels": [10, 11], "pages": [12]])
        let second = try XCTUnwrap(objects[2])
        XCTAssertEqual(second.attributes["text"], .string("\u{1F600} \u{0}"))
        XCTAssertEqual(second.attributes["blob"], .data(Data()))
        XCTAssertEqual(second.attributes["float"], nil)
        XCTAssertEqual(second.relationships, ["parent": [1]])
        XCTAssertNoThrow(try SnapshotGraph(file: file, model: model, storeIdentifier: "F00D", url: nil))
    }
}
