@testable import BinaryBackend
import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Files that are not binary stores, or hostile ones, give a typed error when the store is
/// loaded — never a crash, a hang or a memory blow-up — and the file is left as it was.
final class BinaryStoreBadFileTests: XCTestCase {
    /// Loads `data` as a binary store file of the blog model and returns the error's code,
    /// checking that the file was not changed.
    private func loadError(_ data: Data, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) throws -> StoreError.Code? {
        let directory = try TemporaryDirectory()
        let url = directory.file("Bad.binary")
        try data.write(to: url)
        defer { XCTAssertEqual(try? Data(contentsOf: url), data, "the file was changed \(message)", file: file, line: line) }
        let request = PersistentStoreLoadRequest(description: PersistentStoreDescription(type: .binary, url: url), model: try BlogModel.make())
        do {
            _ = try AtomicStore(request, type: .binary, format: BinaryStoreFormat())
            XCTFail("the file loaded \(message)", file: file, line: line)
            return nil
        } catch let error as StoreError {
            XCTAssertFalse(error.message.isEmpty, file: file, line: line)
            return error.code
        }
    }

    /// A valid store file of the blog model with a few objects.
    private func validFile() throws -> Data {
        let model = try BlogModel.make()
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary", modelVersionHashes: model.entityVersionHashesByName))
        file.objects = [
            AtomicStoreObject(entityName: "Author", primaryKey: 1, attributes: ["name": "ada"], relationships: ["posts": [2]]),
            AtomicStoreObject(entityName: "Post", primaryKey: 2, attributes: ["title": "Hello", "views": 3], relationships: ["author": [1]]),
        ]
        file.nextPrimaryKey = 3
        return try BinaryStoreFormat().write(file, model: model)
    }

    func testTheValidFileLoads() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Good.binary")
        try validFile().write(to: url)
        let request = PersistentStoreLoadRequest(description: PersistentStoreDescription(type: .binary, url: url), model: try BlogModel.make())
        let store = try AtomicStore(request, type: .binary, format: BinaryStoreFormat())
        guard case .count(let count) = try store.execute(StoreFetchRequest(entityName: "Post", resultType: .count)) else { return XCTFail() }
        XCTAssertEqual(count, 1)
    }

    func testTruncatedFilesAreRefused() throws {
        let data = try validFile()
        XCTAssertEqual(try loadError(data.prefix(data.count - 1)), .truncated)
        XCTAssertEqual(try loadError(data.prefix(data.count / 2)), .truncated)
        XCTAssertEqual(try loadError(data.prefix(20)), .truncated)
        for length in stride(from: 8, to: data.count, by: 29) {
            let code = try loadError(data.prefix(length), "cut at \(length)")
            XCTAssertTrue(code == .truncated || code == .corrupt, "cut at \(length): \(String(describing: code))")
        }
    }

    func testFilesOfOtherFormatsAreTheWrongFormat() throws {
        XCTAssertEqual(try loadError(Data("garbage, not a store at all".utf8)), .wrongFormat)
        XCTAssertEqual(try loadError(Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 193 &+ 7) })), .wrongFormat)
        let xml = try PropertyListSerialization.data(fromPropertyList: ["format": "Stowage.BinaryStore"], format: .xml, options: 0)
        XCTAssertEqual(try loadError(xml), .wrongFormat)
        XCTAssertEqual(try loadError(Data("SQLite format 3\u{0}".utf8) + Data(count: 100)), .wrongFormat)
    }

    func testPropertyListsOfAnotherShapeAreTheWrongFormat() throws {
        let array = try PropertyListSerialization.data(fromPropertyList: [1, 2, 3], format: .binary, options: 0)
        XCTAssertEqual(try loadError(array), .wrongFormat)
        let metadataOnly = try PropertyListSerialization.data(fromPropertyList: ["NSStoreType": "Binary"], format: .binary, options: 0)
        XCTAssertEqual(try loadError(metadataOnly), .wrongFormat)
        let otherMarker = try PropertyListSerialization.data(fromPropertyList: ["format": "Something.Else", "version": 1], format: .binary, options: 0)
        XCTAssertEqual(try loadError(otherMarker), .wrongFormat)
        let newer = try PropertyListSerialization.data(fromPropertyList: ["format": "Stowage.BinaryStore", "version": 2], format: .binary, options: 0)
        XCTAssertEqual(try loadError(newer), .wrongFormat)
        let incomplete = try PropertyListSerialization.data(fromPropertyList: ["format": "Stowage.BinaryStore", "version": 1], format: .binary, options: 0)
        XCTAssertEqual(try loadError(incomplete), .corrupt)
        // A set as the whole file (the shape that crashes Foundation's reader).
        XCTAssertEqual(try loadError(RawPropertyList.make([RawPropertyList.set([1, 1]), RawPropertyList.integer(1)])), .wrongFormat)
    }

    func testHostileMetadataIsRefused() throws {
        typealias Raw = RawPropertyList
        // A set.
        XCTAssertEqual(try loadError(Raw.store(metadata: 12, extra: [Raw.set([9])])), .corrupt)
        // An array that contains itself.
        XCTAssertEqual(try loadError(Raw.store(metadata: 12, extra: [Raw.array([13]), Raw.array([12])])), .corrupt)
        // Nesting far deeper than a metadata dictionary needs.
        let depth = 200
        let nested: [[UInt8]] = (0..<depth).map { (level: Int) -> [UInt8] in
            level == depth - 1 ? Raw.array([]) : Raw.array([UInt8(12 + level + 1)])
        }
        XCTAssertEqual(try loadError(Raw.store(metadata: 12, extra: nested)), .corrupt)
        // The shared-reference bomb: 40 arrays, each holding the next one twice (2^40 nodes expanded).
        let bomb: [[UInt8]] = (0..<40).map { (level: Int) -> [UInt8] in
            let next = UInt8(12 + level + 1)
            return level == 39 ? Raw.string("x") : Raw.array([next, next])
        }
        let bombFile = Raw.store(metadata: 12, extra: bomb)
        XCTAssertLessThan(bombFile.count, 600)
        XCTAssertEqual(try loadError(bombFile), .corrupt)
        // An array declaring 2^62 elements.
        let huge: [UInt8] = [0xAF, 0x13] + Raw.bigEndian(1 << 62, size: 8) + [1, 2, 3]
        XCTAssertEqual(try loadError(Raw.store(metadata: 12, extra: [huge])), .corrupt)
    }

    func testHostileColumnsAreRefused() throws {
        typealias Raw = RawPropertyList
        // Entity "Post" whose keys are a dictionary, and one whose "keys" is the top dictionary (a cycle).
        let postKeys: [[UInt8]] = [Raw.string("Post"), Raw.string("keys")]
        XCTAssertEqual(try loadError(Raw.store(metadata: 11, entities: 14, extra: postKeys + [
            Raw.dictionary([12], [15]), Raw.dictionary([13], [11]),
        ])), .corrupt)
        XCTAssertEqual(try loadError(Raw.store(metadata: 11, entities: 14, extra: postKeys + [
            Raw.dictionary([12], [15]), Raw.dictionary([13], [0]),
        ])), .corrupt)
        // A to-many cell declaring 2^62 keys.
        let hugeArray: [UInt8] = [0xAF, 0x13] + Raw.bigEndian(1 << 62, size: 8) + [1]
        XCTAssertEqual(try loadError(Raw.store(metadata: 11, entities: 14, extra: postKeys + [
            Raw.dictionary([12], [15]),
            Raw.dictionary([13, 17], [16, 18]), Raw.array([10]), Raw.string("relationships"),
            Raw.dictionary([19], [20]), Raw.string("tags"), Raw.array([21]), hugeArray,
        ])), .corrupt)
    }

    func testColumnsSharingOneArrayCannotMultiplyTheFile() throws {
        // 4,000 objects and 4,000 attribute columns that all share one values array: 16 million
        // cells described by a file of about 100 kB.
        var builder = BinaryPropertyListBuilder()
        let count = 4_000
        let keys = builder.array((1...count).map { builder.integer(Int64($0)) })
        let text = builder.string("shared")
        let column = builder.dictionary(["type": builder.string("string"), "values": builder.array(Array(repeating: text, count: count))])
        var columns: [String: Int] = [:]
        for number in 0..<count { columns["a\(number)"] = column }
        let table = builder.dictionary(["keys": keys, "attributes": builder.dictionary(columns)])
        let top = builder.dictionary([
            "format": builder.string("Stowage.BinaryStore"), "version": builder.integer(1), "storeUUID": builder.string("U"),
            "nextObjectID": builder.integer(1), "metadata": builder.dictionary([String: Int]()), "entities": builder.dictionary(["Post": table]),
        ])
        let data = builder.finish(top: top)
        XCTAssertLessThan(data.count, 200_000)
        XCTAssertEqual(try loadError(data), .corrupt)
    }

    func testModelProblemsAreReportedByTheEngine() throws {
        let model = try BlogModel.make()
        let format = BinaryStoreFormat()
        func file(_ objects: [AtomicStoreObject]) throws -> Data {
            var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary"))
            file.objects = objects
            return try format.write(file, model: model)
        }
        XCTAssertEqual(try loadError(file([AtomicStoreObject(entityName: "Nope", primaryKey: 1)])), .unknownEntity)
        XCTAssertEqual(try loadError(file([AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["nope": 1])])), .unknownProperty)
        XCTAssertEqual(try loadError(file([AtomicStoreObject(entityName: "Post", primaryKey: 1, relationships: ["author": [9]])])), .danglingReference)
        XCTAssertEqual(try loadError(file([AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["title": 5])])), .corrupt)
        var other = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary", modelVersionHashes: ["Gone": Data([1])]))
        other.objects = []
        XCTAssertEqual(try loadError(try format.write(other, model: model)), .incompatibleModel)
    }
}
