import Foundation
import StoreCore
import XCTest

/// Our codec against Foundation's `PropertyListSerialization`, Python's plistlib and Core Data.
final class PropertyListInteropTests: XCTestCase {
    private let reader = BinaryPropertyListReader()
    private let writer = BinaryPropertyListWriter()

    func testFoundationReadsWhatWeWrite() throws {
        let data = writer.write(PropertyListFixtures.sample)
        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        XCTAssertEqual(PropertyListFixtures.value(fromFoundation: object), PropertyListFixtures.sample)
    }

    func testWeReadWhatFoundationWrites() throws {
        let object = PropertyListFixtures.foundationObject(PropertyListFixtures.sample)
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        XCTAssertEqual(try reader.read(data), PropertyListFixtures.sample)
    }

    func testFoundationsLargeUnsignedIntegersAreReadWhenTheyFitAndRefusedOtherwise() throws {
        let fits = try PropertyListSerialization.data(fromPropertyList: [UInt64(1) << 62], format: .binary, options: 0)
        XCTAssertEqual(try reader.read(fits), [.integer(1 << 62)])
        // Foundation writes values above Int64.max as 16-byte integers.
        let tooBig = try PropertyListSerialization.data(fromPropertyList: [UInt64.max], format: .binary, options: 0)
        XCTAssertThrowsError(try reader.read(tooBig)) { error in
            XCTAssertEqual((error as? PropertyListError)?.code, .unsupported)
        }
    }

    func testCoreDataMetadataReads() throws {
        let metadata = try reader.read(PropertyListFixtures.coreDataMetadata)
        XCTAssertEqual(metadata["NSStoreType"], "SQLite")
        XCTAssertEqual(metadata["NSPersistenceFrameworkVersion"], 637)
        XCTAssertEqual(metadata["NSStoreModelVersionIdentifiers"], [""])
        let hashes = metadata["NSStoreModelVersionHashes"]?.dictionaryValue ?? [:]
        XCTAssertEqual(Set(hashes.keys), ["Author", "Book"])
        XCTAssertEqual(hashes.values.compactMap(\.dataValue).map(\.count), [32, 32])
        XCTAssertEqual(try reader.read(writer.write(metadata)), metadata)
    }

    func testKeyedArchiveWithUIDsFromPythonReads() throws {
        let archive = try reader.read(PropertyListFixtures.pythonKeyedArchive)
        XCTAssertEqual(archive, [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": ["$null", "hello", .uid(300), .uid(1 << 40)],
        ])
        XCTAssertEqual(try reader.read(writer.write(archive)), archive)
    }
}
