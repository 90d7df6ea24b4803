import Foundation
import StoreCore
import XCTest

final class PropertyListRoundTripTests: XCTestCase {
    private let reader = BinaryPropertyListReader()
    private let writer = BinaryPropertyListWriter()

    private func roundTrip(_ value: PropertyListValue, file: StaticString = #filePath, line: UInt = #line) throws {
        let data = writer.write(value)
        XCTAssertEqual(try reader.read(data), value, file: file, line: line)
    }

    func testEveryScalarRoundTripsAsTheTopObject() throws {
        let scalars: [PropertyListValue] = [
            "", "plain", "caf\u{E9}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{10FFFF}\u{1D11E}",
            0, 1, 15, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, .integer(.max), .integer(.min), -1, -256,
            0.0, 1.5, -2.75, .real(.greatestFiniteMagnitude), .real(.leastNonzeroMagnitude), .real(-.infinity),
            true, false,
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -1e9 + 0.5)),
            .date(.distantFuture),
            .data(Data()), .data(Data([0, 1, 0xFF])), .data(Data(repeating: 7, count: 300)),
            .uid(0), .uid(255), .uid(256), .uid(70_000), .uid(1 << 40), .uid(.max),
        ]
        for scalar in scalars { try roundTrip(scalar) }
    }

    func testNegativeZeroAndNaNKeepTheirBits() throws {
        let value: PropertyListValue = [.real(-0.0), .real(0.0), .real(.nan), .real(.nan)]
        let elements = try reader.read(writer.write(value)).arrayValue ?? []
        XCTAssertEqual(elements.compactMap(\.realValue).map(\.bitPattern), [(-0.0).bitPattern, 0, Double.nan.bitPattern, Double.nan.bitPattern])
    }

    func testNestedAndEmptyContainersRoundTrip() throws {
        try roundTrip([])
        try roundTrip([:])
        try roundTrip([[], [:], [[[]]], ["a": [:], "b": [[1, "x", ["y": .data(Data([1]))]]]]])
        try roundTrip(PropertyListFixtures.sample)
    }

    func testLargeCollectionsUseExtendedCountsAndWideReferences() throws {
        let numbers = PropertyListValue.array((0..<70_000).map { .integer(Int64($0)) })
        let data = writer.write(numbers)
        XCTAssertEqual(data[data.count - 25], 4, "70,000 objects need 4-byte references")
        XCTAssertEqual(try reader.read(data), numbers)
        let dictionary = PropertyListValue.dictionary(Dictionary(uniqueKeysWithValues: (0..<20).map { ("key\($0)", .integer(Int64($0))) }))
        try roundTrip(dictionary)
    }

    func testWriterChoosesTheSmallestIntegerEncoding() {
        func objectBytes(_ value: Int64) -> [UInt8] {
            let data = [UInt8](writer.write(.integer(value)))
            return Array(data[8..<(data.count - 33)])  // between the magic and the one-entry offset table
        }
        XCTAssertEqual(objectBytes(5), [0x10, 0x05])
        XCTAssertEqual(objectBytes(300), [0x11, 0x01, 0x2C])
        XCTAssertEqual(objectBytes(70_000), [0x12, 0x00, 0x01, 0x11, 0x70])
        XCTAssertEqual(objectBytes(1 << 32), [0x13, 0, 0, 0, 1, 0, 0, 0, 0])
        XCTAssertEqual(objectBytes(-1), [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    func testStringsAreASCIIWhenTheyCanBeAndUTF16Otherwise() {
        let ascii = [UInt8](writer.write("abc"))
        XCTAssertEqual(Array(ascii[8..<12]), [0x53, 0x61, 0x62, 0x63])
        let nonBMP = [UInt8](writer.write("\u{1F600}"))
        XCTAssertEqual(Array(nonBMP[8..<13]), [0x62, 0xD8, 0x3D, 0xDE, 0x00], "one surrogate pair, big-endian")
    }

    func testRepeatedStringsAreWrittenOnceButEquivalentSpellingsStayDistinct() throws {
        let repeated = PropertyListValue.array(Array(repeating: "a long repeated string value", count: 1_000))
        XCTAssertLessThan(writer.write(repeated).count, 2_200, "1,000 references to one string")
        let spellings: PropertyListValue = ["\u{E9}", "e\u{301}"]
        let read = try reader.read(writer.write(spellings)).arrayValue?.compactMap(\.stringValue) ?? []
        XCTAssertEqual(read.map { Array($0.unicodeScalars) }, [["\u{E9}"], ["e", "\u{301}"]])
    }

    func testOutputIsTheSameWhateverTheDictionaryOrder() {
        var forward: [String: PropertyListValue] = [:]
        var backward: [String: PropertyListValue] = [:]
        let keys = (0..<50).map { "key\($0)" }
        for key in keys { forward[key] = .string(key) }
        for key in keys.reversed() { backward[key] = .string(key) }
        XCTAssertEqual(writer.write(.dictionary(forward)), writer.write(.dictionary(backward)))
    }

    func testAccessorsReadTheMatchingCaseOnly() {
        let value: PropertyListValue = ["name": "Ada", "age": 36]
        XCTAssertEqual(value["name"]?.stringValue, "Ada")
        XCTAssertEqual(value["age"]?.integerValue, 36)
        XCTAssertNil(value["age"]?.stringValue)
        XCTAssertNil(value["missing"])
        XCTAssertNil(PropertyListValue.string("x")["name"])
    }
}
