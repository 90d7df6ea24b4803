import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Hostile and broken binary property lists: each must give a clear error, never a crash.
final class PropertyListMalformedInputTests: XCTestCase {
    private let reader = BinaryPropertyListReader()

    private func assertRefused(
        _ data: Data, _ code: PropertyListError.Code, reader: BinaryPropertyListReader? = nil,
        _ why: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try (reader ?? self.reader).read(data), why, file: file, line: line) { error in
            XCTAssertEqual((error as? PropertyListError)?.code, code, "\(why): \(error)", file: file, line: line)
        }
    }

    private func handmade(_ objects: [[UInt8]], top: UInt64 = 0) -> Data {
        PropertyListFixtures.handmade(objects, top: top)
    }

    func testWrongMagicIsNotABinaryPropertyList() {
        assertRefused(Data(), .notBinaryPropertyList)
        assertRefused(Data("<?xml version=\"1.0\"?><plist/>".utf8), .notBinaryPropertyList)
        var version01 = [UInt8](handmade([[0x09]]))
        version01[7] = UInt8(ascii: "1")
        assertRefused(Data(version01), .notBinaryPropertyList, "bplist01")
    }

    func testEveryPrefixOfAValidFileIsRefused() {
        let data = BinaryPropertyListWriter().write(PropertyListFixtures.sample)
        for length in 0..<data.count {
            XCTAssertThrowsError(try reader.read(data.prefix(length)), "prefix of \(length) bytes") { error in
                XCTAssertTrue(error is PropertyListError)
            }
        }
    }

    func testTrailerPointingOutOfRangeIsCorrupt() {
        let valid: [[UInt8]] = [[0xA1, 0x01], [0x09]]
        XCTAssertEqual(try reader.read(handmade(valid)), [true])
        assertRefused(PropertyListFixtures.handmade(valid, top: 2), .corrupt, "top object past the count")
        assertRefused(PropertyListFixtures.handmade(valid, objectCount: 3), .corrupt, "count past the offset table")
        assertRefused(PropertyListFixtures.handmade(valid, objectCount: .max), .corrupt, "huge count")
        assertRefused(PropertyListFixtures.handmade(valid, objectCount: 0), .corrupt, "no objects")
        assertRefused(PropertyListFixtures.handmade(valid, offsetTableOffset: 9_999), .corrupt, "table past the end")
        assertRefused(PropertyListFixtures.handmade(valid, offsetTableOffset: .max), .corrupt, "table at UInt64.max")
        assertRefused(PropertyListFixtures.handmade(valid, offsetTableOffset: 2), .corrupt, "table inside the magic")
        assertRefused(PropertyListFixtures.handmade(valid, referenceSize: 0), .corrupt, "zero reference size")
        var offsetIntoTrailer = [UInt8](handmade(valid))
        offsetIntoTrailer[11] = 0xF0  // object 0's offset, past the offset table
        assertRefused(Data(offsetIntoTrailer), .corrupt, "object offset outside the object area")
    }

    func testObjectReferenceOutOfRangeIsCorrupt() {
        assertRefused(handmade([[0xA2, 0x01, 0x02], [0x09]]), .corrupt)
        assertRefused(handmade([[0xD1, 0x05, 0x01], [0x51, 0x61]]), .corrupt)
    }

    func testCyclesAreRefused() {
        assertRefused(handmade([[0xA1, 0x00]]), .cyclicReference, "array containing itself")
        assertRefused(handmade([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]]), .cyclicReference, "through a dictionary")
    }

    func testNestingDeeperThanTheLimitIsRefused() throws {
        // Object i is an array holding object i + 1; the last is empty. 2-byte references.
        func nested(_ depth: Int) -> Data {
            let arrays = (0..<depth - 1).map { [0xA1] + PropertyListFixtures.bigEndian(UInt64($0 + 1), size: 2) }
            return PropertyListFixtures.handmade(arrays + [[0xA0]], referenceSize: 2)
        }
        var value = try reader.read(nested(512))
        var depth = 0
        while let inner = value.arrayValue { depth += 1; value = inner.first ?? .boolean(true) }
        XCTAssertEqual(depth, 512)
        assertRefused(nested(513), .nestingTooDeep)
        assertRefused(nested(40_000), .nestingTooDeep)
    }

    func testSharedObjectCannotHideNestingDepth() {
        // top = [a, b]; a nests 5 deep; b nests 5 deep around a, so b is 10 deep.
        let chainA: [[UInt8]] = [[0xA1, 0x02], [0xA1, 0x03], [0xA1, 0x04], [0xA1, 0x05], [0xA0]]
        let chainB: [[UInt8]] = [[0xA1, 0x07], [0xA1, 0x08], [0xA1, 0x09], [0xA1, 0x0A], [0xA1, 0x01]]
        let data = handmade([[0xA2, 0x01, 0x06]] + chainA + chainB)
        XCTAssertNoThrow(try BinaryPropertyListReader(limits: .init(maxDepth: 11)).read(data))
        assertRefused(data, .nestingTooDeep, reader: BinaryPropertyListReader(limits: .init(maxDepth: 10)))
    }

    func testSharedReferenceBombFailsFast() {
        // Object 0 is a leaf; object k is [k-1, k-1]: 2^41 nodes once expanded, in 130 bytes.
        let levels = (1...40).map { [0xA2, UInt8($0 - 1), UInt8($0 - 1)] }
        assertRefused(handmade([[0x10, 0x01]] + levels, top: 40), .tooManyValues)
    }

    func testTheNodeLimitIsProportionalToTheInput() {
        // 2^16 - 1 nodes from about 70 bytes: far below the default limit of 10 million, but a
        // list that small may not expand that far (a 528-byte Z_METADATA once took 10 s and 532 MB).
        let levels = (1...15).map { [0xA2, UInt8($0 - 1), UInt8($0 - 1)] }
        let data = handmade([[0x10, 0x01]] + levels, top: 15)
        assertRefused(data, .tooManyValues)
        XCTAssertEqual(BinaryPropertyListReader.proportionalValueCount(forSize: 528), 33_792)
    }

    func testModestSharingIsReadAndCountedExpanded() throws {
        let levels = (1...10).map { [0xA2, UInt8($0 - 1), UInt8($0 - 1)] }
        let data = handmade([[0x10, 0x01]] + levels, top: 10)
        var expected: PropertyListValue = 1
        for _ in 1...10 { expected = [expected, expected] }
        XCTAssertEqual(try reader.read(data), expected)
        // 2^11 - 1 nodes: the limit counts every expanded node.
        XCTAssertNoThrow(try BinaryPropertyListReader(limits: .init(maxValueCount: 2_047)).read(data))
        assertRefused(data, .tooManyValues, reader: BinaryPropertyListReader(limits: .init(maxValueCount: 2_046)))
    }

    func testUnsupportedObjectsAreRefused() {
        assertRefused(handmade([[0xC1, 0x01], [0x09]]), .unsupported, "set")
        assertRefused(handmade([[0x00]]), .unsupported, "null")
        assertRefused(handmade([[0x0F]]), .unsupported, "fill")
        assertRefused(handmade([[0x8F] + Array(repeating: 1, count: 16)]), .unsupported, "16-byte UID")
        assertRefused(handmade([[0x14] + PropertyListFixtures.bigEndian(1, size: 8) + Array(repeating: 0, count: 8)]), .unsupported, "2^64")
    }

    func testSixteenByteIntegersThatFitAreRead() throws {
        XCTAssertEqual(try reader.read(handmade([[0x14] + Array(repeating: 0, count: 15) + [5]])), 5)
        XCTAssertEqual(try reader.read(handmade([[0x14] + Array(repeating: 0xFF, count: 15) + [0xFE]])), -2)
        XCTAssertEqual(try reader.read(handmade([[0x22, 0x3F, 0xC0, 0x00, 0x00]])), 1.5, "4-byte real")
    }

    func testMalformedObjectsAreCorrupt() {
        let cases: [(String, [[UInt8]])] = [
            ("unknown marker", [[0x70]]),
            ("32-byte integer", [[0x15] + Array(repeating: 0, count: 32)]),
            ("2-byte real", [[0x21, 0, 0]]),
            ("date of 4 bytes", [[0x32, 0, 0, 0, 0]]),
            ("ASCII above 0x7F", [[0x52, 0x61, 0xE9]]),
            ("lone surrogate", [[0x61, 0xD8, 0x00]]),
            ("non-string key", [[0xD1, 0x01, 0x01], [0x10, 0x01]]),
            ("duplicate key", [[0xD2, 0x01, 0x01, 0x02, 0x02], [0x51, 0x6B], [0x09]]),
            ("count not an integer", [[0x4F, 0x51, 0x01]]),
            ("count of 16 bytes", [[0x4F, 0x14] + Array(repeating: 0, count: 16)]),
            ("data longer than the file", [[0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]),
            ("negative count", [[0x5F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]),
            ("array of 2^32 - 1", [[0xAF, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]]),
            ("dictionary of 2^62", [[0xDF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]]),
            ("UTF-16 of 2^16 - 1", [[0x6F, 0x11, 0xFF, 0xFF, 0x00]]),
            ("truncated double", [[0x23, 0x3F, 0xF0]]),
        ]
        for (why, objects) in cases { assertRefused(handmade(objects), .corrupt, why) }
    }

    func testRandomMutationsNeverCrashAndWhatReadsRewritesStably() {
        // Low limits keep rewrites of accidental shared-reference DAGs small.
        let reader = BinaryPropertyListReader(limits: .init(maxDepth: 64, maxValueCount: 10_000))
        let writer = BinaryPropertyListWriter()
        var random = SeededGenerator(state: 0x5EED)
        let seeds = [[UInt8](writer.write(PropertyListFixtures.sample)), [UInt8](PropertyListFixtures.coreDataMetadata)]
        var outcomes = (read: 0, refused: 0)
        for round in 0..<6_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0...(random.next() % 4) {
                let position = Int(random.next() % UInt64(bytes.count))
                let choices: [UInt8] = [0, 1, 0x0F, 0x7F, 0x80, 0xFF, UInt8(truncatingIfNeeded: random.next())]
                bytes[position] = choices[Int(random.next() % UInt64(choices.count))]
            }
            do {
                let value = try reader.read(Data(bytes))
                let rewritten = writer.write(value)
                XCTAssertEqual(try writer.write(reader.read(rewritten)), rewritten, "round \(round)")
                outcomes.read += 1
            } catch {
                outcomes.refused += 1  // typed throws: only ever a PropertyListError
            }
        }
        XCTAssertGreaterThan(outcomes.read, 0, "some mutations (inside strings and data) stay valid")
        XCTAssertGreaterThan(outcomes.refused, 0)
    }
}
