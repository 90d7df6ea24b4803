import BinaryBackend
import Foundation
import StoreCore
import XCTest

/// Inputs the libFuzzer target (Fuzz/, docs/fuzzing.md) found crashing, each loaded as the
/// harness does: the format reads it, then the engine builds its graph. Each must give a value
/// or a typed error.
final class BinaryStoreFuzzRegressionTests: XCTestCase {
    private func load(_ base64: String) throws -> StoreError.Code? {
        // The harness's own model (BinaryStoreFuzzModel.swift links to the fuzz target's file).
        let model = try XCTUnwrap(BinaryStoreFuzzModel.model)
        let data = try XCTUnwrap(Data(base64Encoded: base64))
        do {
            let file = try BinaryStoreFormat().read(data, model: model)
            _ = try SnapshotGraph(file: file, model: model, storeIdentifier: file.metadata.storeUUID, url: nil)
            return nil
        } catch let error as StoreError {
            return error.code
        }
    }

    /// crash-81cdbdac: a decimal attribute's column typed "double" holding -infinity; the engine's
    /// coercion called `Decimal(Double)`, which traps on infinities (found after 530,000 runs).
    func testAnInfiniteDoubleForADecimalAttributeIsRefused() throws {
        XCTAssertEqual(try load("YnBsaXN0MDAQAVVJbmJveFZzdHJpbmdUdHlwZVZ2YWx1ZXMQAlRuYW1lVW5vdGVzWmF0dHJpYnV0ZXNUa2V5c11yZWxhdGlvbnNoaXBzQwECA1RkYXRhVDA2LjVXZGVjaW1hbCP/8AAAAAAAAFZkb3VibGUJV2Jvb2xlYW4iP8AAAFVmbG9hdBP//////////VdpbnRlZ2VyEgABEXATf/////////9fEBlodHRwczovL2V4YW1wbGUuY29tL2E/Yj1jU3VyaWgAaADpAGwAbABvAADYPd4ATxAQAQIDBAUGBwgJCgsMDQ4PEFR1dWlkM0AogAAAAAAAVGRhdGUQBRAEEANUYmxvYlRmbGFnU2kxNlNpMzJTaTY0VGxpbmtUdGV4dFR3aGVuVmZvbGRlclVwYWdlc1R0YWdzU3JlZFN0d29UYm9keVZudW1iZXJUbm90ZV8QE1N0b3dhZ2UuQmluYXJ5U3RvcmVfECQ4RTBFM0U0Qy02MkI0LTRGM0EtOUUzNi02QzdFNUU4QjVCMTAQBlZCaW5hcnlPECC7F+OWFQnLVX3fXUpDjFTqUharTpiJARp7/eWhii7PbE8QIBJjtcf4Ms5ol2VsVmVyc2lvbkhhc2hlc1ZlcnNpb25fEB5OU1N0b3JlTW9kZWxWZXJzaU9uSWRlbnRpZmllcnNbTlNTdG9yZVR5cGVbsqysi5CNmqtVSURYZW50aXRpZXNWZm9ybWF0WG1ldGFkYbtc5kSxG85LvmqIiqPCpOz+qXxS7eD7XkhCVkZvbGRlclROb3RlVFBhZ2VTVGFnWFRleHRQYWdlUF8QGU5TU3RvcmVNb2RlbFZlcnNpb25IYXNoZXNfECBOU1N0b3JlTW9kZWxWZXJzaW9uSGFzaGVzVmVyc2lvbl8QHk5TU3RvcmVNb2RlbFZlcnNpb25JZGVudGlmaWVyc1tOU1N0b3JlVHlwZVtOU1N0b3JlVVVJRFhlbnRpdGllc1Zmb3JtYXRYbWV0YWRhdGFcbmV4dE9iamVjdElEWXN0b3JlVVVJRFd2ZXJzaW9uoQChAtIFBgQDoQihCdELB9ENCtMPEBEMAQ6hCKEU0gUGFhWhGNIFBhoZoRzSBQYeHaEg0gUGIiGhJNIFBiYloSjSBQYqKaEs0gUGKi2hL9IFBiowoTLSBQY0M6E20gUGBDehOdIFBjs6oT3SBQY/PqEAokJDoUShRqFH3EkaHkomS0xNTk87UBcfJzEuIysbNTg8QNNSU1RBRUjTDxARURNVoUahWNIFBgRZoQihW9ELWtENXNMPEBFdV16iQ0KgomFi0gUGBGOiCADSBQYqZaIICNJoaWRm0Wtn0w8QEWpgbNV3eHl6e3RzdXZyoX3Vf4CBgoN8Rn5xb9R3eHp7ElZfbdaGh4iJiouFboRwbwAACAMYAAoDGgAQABcAHAMcACMDIQMjACUDJQAqAygAMAA7AEADKwMyAE4DNABSAzYAVwM7AFwDPQBkA0IAbQNEAHQDSQB1A0sAfQNQAIIDUgCIA1cAkQNZAJkDXgNgAJ4DZQNnAKcDbADDA24AxwNzA3UA2AN6AOsDfADwA4EA+QODA4gA/gEAA4oDjQECA48DkQEEAQkBDgESARYBGgEfASQDkwEpATABNgOsA7MDugE7A7wDvgPDA8UDxwPKA80D1AE/A9cD2APbA+AD4wPoAUMBSAPrAU8D8APzAVQBagGRAZMBmgG9AeACAwImAkkCUAJVAloCXgP6AmcEBQJoAoQCpwLIAtQEBwQSAuAC6QLwAvkDBgMQBBsAAAAAAAACAQAAAAAAAACNAAAAAAAAAIwAAAAAAAAEKA=="), .corrupt)
    }

    /// The same problem, written by hand: every non-finite double offered to a decimal attribute.
    func testNonFiniteDoublesForADecimalAttributeAreRefused() throws {
        let model = try SpecimenModel.make()
        for value in [Double.infinity, -.infinity, .nan] {
            var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary"))
            file.objects = [AtomicStoreObject(entityName: "Specimen", primaryKey: 1, attributes: ["decimal": .double(value)])]
            let read = try BinaryStoreFormat().read(try BinaryStoreFormat().write(file, model: model), model: model)
            XCTAssertThrowsError(try SnapshotGraph(file: read, model: model, storeIdentifier: "S", url: nil), "\(value)") { error in
                XCTAssertEqual((error as? StoreError)?.code, .corrupt)
            }
        }
    }
}
