import Foundation
import XCTest

/// docs/errors.md lists every error code the sources declare, under its error type.
final class ErrorCodeDocumentationTests: XCTestCase {
    func testEveryDeclaredErrorCodeIsDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let documentation = try String(contentsOf: root.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        let sections = documentation.components(separatedBy: "\n### ").dropFirst()
        let documented = Dictionary(uniqueKeysWithValues: sections.map { section -> (String, String) in
            (String(section.prefix { $0 != "." }).trimmingCharacters(in: CharacterSet(charactersIn: "`")), section)
        })

        let declaration = try NSRegularExpression(pattern: #"extension ErrorCode where Domain == (\w+)|public static let (\w+) = Self\("#)
        var codes = 0
        let sources = FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        while let file = sources?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            var domain: String?
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) {
                    domain = String(text[range])
                } else if let range = Range(match.range(at: 2), in: text), let domain {
                    codes += 1
                    let code = String(text[range])
                    XCTAssertTrue(documented[domain]?.contains("- `\(code)` — ") == true, "\(domain).Code.\(code) (\(file.lastPathComponent)) is in docs/errors.md")
                }
            }
        }
        XCTAssertGreaterThan(codes, 80, "the scan found the codes")
    }
}
