import CXML
import Foundation
import StoreCore
import StoreTestSupport
import XCTest
import XMLBackend

/// Entities and DTDs: nothing outside the file is ever read, no entity is ever expanded, and
/// every such document is refused with a clear error.
final class XMLSecurityTests: XCTestCase {
    private static let marker = "STOWAGE-SECRET-MARKER-7f3a"

    /// A file whose contents must never appear anywhere.
    private func secretFile(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("secret.txt")
        try Data("<!ENTITY leak \"\(Self.marker)\">\(Self.marker)".utf8).write(to: url)
        return url
    }

    func testAnExternalEntityIsRefusedAndTheFileIsNeverRead() throws {
        let directory = try TemporaryDirectory()
        let secret = try secretFile(in: directory)
        let documents = [
            """
            <?xml version="1.0"?>
            <!DOCTYPE database [<!ENTITY xxe SYSTEM "\(secret.absoluteString)">]>
            <database><object type="TAG" id="z1"><attribute name="name" type="string">&xxe;</attribute></object></database>
            """,
            """
            <?xml version="1.0"?>
            <!DOCTYPE database [<!ENTITY % remote SYSTEM "\(secret.path)"> %remote;]>
            <database/>
            """,
            """
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "\(secret.absoluteString)">
            <database><object type="TAG" id="z1"><attribute name="name" type="string">&leak;</attribute></object></database>
            """,
            """
            <?xml version="1.0"?>
            <!DOCTYPE database PUBLIC "-//x//y" "http://127.0.0.1:9/evil.dtd">
            <database/>
            """,
        ]
        for document in documents {
            let error = try XCTUnwrap(XMLTestFiles.loadError(document), document)
            XCTAssertEqual(error.code, .corrupt, document)
            XCTAssertFalse(error.message.contains(Self.marker))
            XCTAssertTrue(error.message.contains("DTD") || error.message.contains("DOCTYPE"), error.message)
        }
        // The process-wide loader the XML store installs refuses even a direct request.
        XCTAssertNil(xmlLoadExternalEntity(secret.absoluteString, nil, nil))
        XCTAssertNil(xmlLoadExternalEntity(secret.path, nil, nil))
    }

    func testAnUndeclaredEntityReferenceIsRefused() throws {
        let text = XMLTestFiles.store(
            objects: #"<object type="TAG" id="z1"><attribute name="name" type="string">&leak;</attribute></object>"#,
            prolog: "<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">")
        XCTAssertEqual(try XMLTestFiles.loadError(text)?.code, .corrupt)
    }

    func testBillionLaughsIsRefusedWithoutExpanding() throws {
        var declarations = #"<!ENTITY lol0 "lol">"#
        for level in 1...10 {
            declarations += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE database [\(declarations)]>\n<database><object type=\"TAG\" id=\"z1\"><attribute name=\"name\" type=\"string\">&lol10;</attribute></object></database>"
        let error = try XMLTestFiles.loadError(text)
        XCTAssertEqual(error?.code, .corrupt)
        XCTAssertTrue(error?.message.contains("internal subset") == true, "\(String(describing: error))")
    }

    func testQuadraticBlowupIsRefusedWithoutExpanding() throws {
        let big = String(repeating: "x", count: 100_000)
        let references = String(repeating: "&big;", count: 100_000)
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE database [<!ENTITY big \"\(big)\">]>\n<database><object type=\"TAG\" id=\"z1\"><attribute name=\"name\" type=\"string\">\(references)</attribute></object></database>"
        XCTAssertEqual(try XMLTestFiles.loadError(text)?.code, .corrupt)
    }

    func testCoreDatasOwnDoctypeIsAcceptedAndNotLoaded() throws {
        let text = XMLTestFiles.store(
            objects: XMLTestFiles.validObjects,
            prolog: "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\" ?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n")
        XCTAssertNil(try XMLTestFiles.loadError(text))
    }
}
