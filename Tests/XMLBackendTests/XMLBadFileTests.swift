import Foundation
import StoreCore
import StoreTestSupport
import XCTest
import XMLBackend

/// Files that are not valid XML stores are refused with a typed error naming the problem, and
/// are never written to.
final class XMLBadFileTests: XCTestCase {
    func testTheValidTemplateLoads() throws {
        XCTAssertNil(try XMLTestFiles.loadError(XMLTestFiles.store(objects: XMLTestFiles.validObjects)))
    }

    func testEveryTruncationIsRefusedAsTruncatedOrCorrupt() throws {
        let bytes = Data(XMLTestFiles.store(objects: XMLTestFiles.validObjects).utf8)
        let trimmedEnd = bytes.count - 2  // the last newline and the end tag's '>' are what a cut removes first
        for length in stride(from: 1, to: trimmedEnd, by: 7) {
            let error = try XMLTestFiles.loadError(bytes.prefix(length))
            XCTAssertNotNil(error, "length \(length)")
            if let error, length > 200 { XCTAssertEqual(error.code, .truncated, "length \(length): \(error)") }
        }
    }

    func testGarbageIsTheWrongFormat() throws {
        var generator = SeededGenerator(state: 9)
        let garbage = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        XCTAssertEqual(try XMLTestFiles.loadError(garbage)?.code, .wrongFormat)
        XCTAssertEqual(try XMLTestFiles.loadError("bplist00 not xml")?.code, .wrongFormat)
        XCTAssertEqual(try XMLTestFiles.loadError(Data([0xFF, 0xFE, 0x3C, 0x00]))?.code, .wrongFormat)
        // Found by the fuzzer's first run (its exit artifact): no bytes at all.
        XCTAssertThrowsError(try XMLStoreFormat().read(Data(), model: BlogModel.make())) { error in
            XCTAssertEqual((error as? StoreError)?.code, .wrongFormat)
        }
    }

    func testAnotherRootElementIsTheWrongFormat() throws {
        let error = try XMLTestFiles.loadError(#"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#)
        XCTAssertEqual(error?.code, .wrongFormat)
        XCTAssertTrue(error?.message.contains("<database>") == true, "\(String(describing: error))")
    }

    func testDeeplyNestedElementsAreRefused() throws {
        let depth = 100_000
        let nested = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        let text = XMLTestFiles.store(objects: "").replacingOccurrences(
            of: "</databaseInfo>", with: "<metadata><plist version=\"1.0\">\(nested)</plist></metadata></databaseInfo>")
        XCTAssertEqual(try XMLTestFiles.loadError(text)?.code, .corrupt)
        let elements = "<object type=\"POST\" id=\"z1\">" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</object>"
        XCTAssertEqual(try XMLTestFiles.loadError(XMLTestFiles.store(objects: elements))?.code, .corrupt)
    }

    func testAnUnknownEntityTypeIsRefused() throws {
        let error = try XMLTestFiles.loadError(XMLTestFiles.store(objects: #"<object type="SPACESHIP" id="z1"></object>"#))
        XCTAssertEqual(error?.code, .unknownEntity)
        XCTAssertTrue(error?.message.contains("SPACESHIP") == true)
    }

    func testAnUnknownAttributeIsRefused() throws {
        let error = try XMLTestFiles.loadError(XMLTestFiles.store(objects: #"<object type="POST" id="z1"><attribute name="warp" type="int16">9</attribute></object>"#))
        XCTAssertEqual(error?.code, .unknownProperty)
    }

    func testADanglingIdrefIsRefused() throws {
        let zForm = XMLTestFiles.store(objects: #"<object type="COMMENT" id="z1"><relationship name="post" type="0/1" destination="POST" idrefs="z7"></relationship></object>"#)
        XCTAssertEqual(try XMLTestFiles.loadError(zForm)?.code, .danglingReference)
        let beyond = XMLTestFiles.store(objects: #"<object type="COMMENT" id="z1"><relationship name="post" type="0/1" destination="POST" idrefs="z99"></relationship></object>"#)
        XCTAssertEqual(try XMLTestFiles.loadError(beyond)?.code, .danglingReference)
        let named = XMLTestFiles.store(objects: #"<object type="COMMENT" id="z1"><relationship name="post" type="0/1" destination="POST" idrefs="NOPE"></relationship></object>"#)
        let error = try XMLTestFiles.loadError(named)
        XCTAssertEqual(error?.code, .danglingReference)
        XCTAssertTrue(error?.message.contains("NOPE") == true)
    }

    func testAReferenceToAnObjectOfTheWrongEntityIsRefused() throws {
        let text = XMLTestFiles.store(objects: """
            <object type="TAG" id="z1"><attribute name="name" type="string">t</attribute></object>
            <object type="COMMENT" id="z2"><relationship name="post" type="0/1" destination="POST" idrefs="z1"></relationship></object>
            """)
        XCTAssertEqual(try XMLTestFiles.loadError(text)?.code, .danglingReference)
    }

    func testWrongValuesForTheirTypesAreRefusedWithTheLine() throws {
        let cases = [
            #"<attribute name="views" type="int64">12abc</attribute>"#,
            #"<attribute name="views" type="int64">99999999999999999999</attribute>"#,
            #"<attribute name="views" type="int64"></attribute>"#,
            #"<attribute name="views" type="string">12</attribute>"#,
            #"<attribute name="timestamp" type="date">yesterday</attribute>"#,
            #"<attribute name="image" type="bin">not base64!</attribute>"#,
            #"<attribute name="title" type="quaternion">x</attribute>"#,
        ]
        for attribute in cases {
            let error = try XMLTestFiles.loadError(XMLTestFiles.store(objects: "<object type=\"POST\" id=\"z1\">\(attribute)</object>"))
            XCTAssertEqual(error?.code, .corrupt, attribute)
            XCTAssertTrue(error?.message.hasPrefix("line 8:") == true, "\(attribute): \(String(describing: error))")
        }
        let comment = #"<object type="COMMENT" id="z1"><attribute name="text" type="string">x</attribute></object><object type="COMMENT" id="z2"><attribute name="author" type="int16">70000</attribute></object>"#
        XCTAssertEqual(try XMLTestFiles.loadError(XMLTestFiles.store(objects: comment))?.code, .corrupt)
    }

    func testTwoObjectsWithOneIdAreRefused() throws {
        let text = XMLTestFiles.store(objects: #"<object type="TAG" id="A"></object><object type="TAG" id="A"></object>"#)
        XCTAssertEqual(try XMLTestFiles.loadError(text)?.code, .corrupt)
        let zForm = XMLTestFiles.store(objects: #"<object type="TAG" id="z3"></object><object type="TAG" id="z3"></object>"#)
        XCTAssertEqual(try XMLTestFiles.loadError(zForm)?.code, .corrupt)
    }

    func testNothingIsPrintedToStandardError() throws {
        let pipe = Pipe()
        let saved = dup(2)
        dup2(pipe.fileHandleForWriting.fileDescriptor, 2)
        _ = try XMLTestFiles.loadError("<database><object></database>")
        _ = try XMLTestFiles.loadError("<database>&undefined;</database>")
        _ = try XMLTestFiles.loadError(Data([0x3C, 0x64, 0xFF, 0xFE]))
        dup2(saved, 2)
        close(saved)
        try pipe.fileHandleForWriting.close()
        XCTAssertEqual(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "")
    }
}
