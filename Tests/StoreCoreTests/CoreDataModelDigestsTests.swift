import Foundation
@testable import StoreCore
import XCTest

/// The digests Core Data records beside a store's version hashes (``CoreDataModelDigests``), and
/// the metadata every store writes with them. `CoreDataTwinTests` checks the values against the
/// Apple-written stores.
final class CoreDataModelDigestsTests: XCTestCase {
    private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// FIPS 180-4's examples.
    func testSHA512MatchesTheStandardsExamples() {
        XCTAssertEqual(
            hex(SHA512.hash(Data("abc".utf8))),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        XCTAssertEqual(
            hex(SHA512.hash(Data())),
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e")
        let twoBlocks = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        XCTAssertEqual(
            hex(SHA512.hash(Data(twoBlocks.utf8))),
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909")
    }

    /// Entities in code-unit order — `SyncFeatureEntity` before `SyncableSettingsMetadata`, "F"
    /// before "a" — each name followed by its hash for the digest, the hashes alone for the checksum.
    func testDigestsCoverTheHashesInCodeUnitOrder() {
        let feature = Data(repeating: 1, count: 32), settings = Data(repeating: 2, count: 32)
        let hashes = ["SyncableSettingsMetadata": settings, "SyncFeatureEntity": feature]
        XCTAssertEqual(
            CoreDataModelDigests.hashesDigest(of: hashes),
            SHA512.hash(Data("SyncFeatureEntity".utf8) + feature + Data("SyncableSettingsMetadata".utf8) + settings).base64EncodedString())
        XCTAssertEqual(CoreDataModelDigests.versionChecksum(of: hashes), SHA256.hash(feature + settings).base64EncodedString())
    }

    func testMetadataRecordsTheDigestsAndAFrameworkVersion() throws {
        let model = try ManagedObjectModel { EntityDescription("Post") { .attribute("title", .string) } }
        let hashes = model.coreDataEntityVersionHashesByName
        let metadata = StoreMetadata(storeType: "xml", modelVersionHashes: hashes)
        let written = metadata.propertyList(storeTypeName: "XML", preserving: [:])
        XCTAssertEqual(written["NSStoreModelVersionHashesDigest"], .string(CoreDataModelDigests.hashesDigest(of: hashes)))
        XCTAssertEqual(written["NSStoreModelVersionChecksumKey"], .string(CoreDataModelDigests.versionChecksum(of: hashes)))
        XCTAssertEqual(written["NSPersistenceFrameworkVersion"], .integer(StoreMetadata.coreDataFrameworkVersion))

        // A store Core Data wrote keeps its framework version; the digests follow the new hashes.
        let rewritten = metadata.propertyList(storeTypeName: "XML", preserving: [
            "NSPersistenceFrameworkVersion": .integer(1251), "NSStoreModelVersionChecksumKey": .string("stale"),
        ])
        XCTAssertEqual(rewritten["NSPersistenceFrameworkVersion"], .integer(1251))
        XCTAssertEqual(rewritten["NSStoreModelVersionChecksumKey"], .string(CoreDataModelDigests.versionChecksum(of: hashes)))
        let read = StoreMetadata(propertyList: rewritten, storeUUID: metadata.storeUUID, storeType: "xml")
        XCTAssertNil(read.userInfo["NSStoreModelVersionChecksumKey"], "Core Data's keys are not the application's")
    }
}
