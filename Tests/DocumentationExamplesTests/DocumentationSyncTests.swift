import Foundation
import XCTest

/// Keeps the documentation's code honest: every `swift` code block of README.md, of the pages in
/// docs/ and of the DocC articles (Sources/Stowage/Stowage.docc/*.md) must appear, line for line,
/// in the Swift files of this test target — where it is compiled and run — unless the line before
/// the block is exactly `<!-- unchecked -->` (Package.swift snippets, which are not Swift programs).
///
/// Lines are compared trimmed, with empty lines and `import` lines dropped (imports belong at the
/// top of a file, whatever a block shows), so indentation may differ; comments are kept and must
/// match too.
final class DocumentationSyncTests: XCTestCase {
    /// The package's root: three levels above this file (Tests/DocumentationExamplesTests/<file>).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static let uncheckedMarker = "<!-- unchecked -->"

    /// A `swift` block of a Markdown file: where it starts and its lines.
    struct CodeBlock {
        let file: String
        let line: Int
        let lines: [String]
    }

    /// The `swift` blocks of a Markdown text, except those whose preceding line is the marker.
    static func swiftBlocks(in text: String, file: String) -> [CodeBlock] {
        let lines = text.components(separatedBy: "\n").map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        var blocks: [CodeBlock] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence.hasPrefix("```") else {
                index += 1
                continue
            }
            // Any fenced block: find its end, so that its contents are never read as fences.
            let language = fence.dropFirst(3).trimmingCharacters(in: .whitespaces)
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
            let unchecked = index > 0 && lines[index - 1].trimmingCharacters(in: .whitespaces) == uncheckedMarker
            if language == "swift", !unchecked {
                blocks.append(CodeBlock(file: file, line: index + 1, lines: Array(lines[(index + 1)..<min(end, lines.count)])))
            }
            index = end + 1
        }
        return blocks
    }

    /// Trimmed, without empty lines and imports.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// Whether `needle` occurs as a contiguous run in `haystack`.
    static func contains(_ haystack: [String], run needle: [String]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return needle.isEmpty }
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start] == first, Array(haystack[start..<(start + needle.count)]) == needle { return true }
            start += 1
        }
        return false
    }

    /// The Markdown files whose blocks are checked: README.md, every page of docs/ and every
    /// article of the catalog.
    static func documentationFiles() throws -> [URL] {
        func markdownFiles(in folder: String) throws -> [URL] {
            try FileManager.default.contentsOfDirectory(at: packageRoot.appendingPathComponent(folder, isDirectory: true), includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "md" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
        let pages = try markdownFiles(in: "docs")
        let articles = try markdownFiles(in: "Sources/Stowage/Stowage.docc")
        return [packageRoot.appendingPathComponent("README.md")] + pages + articles
    }

    /// Every Swift file of this target (this one aside), normalized and concatenated.
    private func exampleLines() throws -> [String] {
        let folder = Self.packageRoot.appendingPathComponent("Tests/DocumentationExamplesTests", isDirectory: true)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent != "DocumentationSyncTests.swift" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        var lines: [String] = []
        for file in files {
            lines += Self.normalized(try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n"))
        }
        return lines
    }

    func testEverySwiftBlockOfTheDocumentationIsCompiledHere() throws {
        let examples = try exampleLines()
        XCTAssertFalse(examples.isEmpty, "no example files found under \(Self.packageRoot.path)")
        var checked = 0
        for url in try Self.documentationFiles() {
            let name = url.path.replacingOccurrences(of: Self.packageRoot.path + "/", with: "")
            let blocks = Self.swiftBlocks(in: try String(contentsOf: url, encoding: .utf8), file: name)
            for block in blocks {
                let lines = Self.normalized(block.lines)
                guard !lines.isEmpty else { continue }
                checked += 1
                XCTAssertTrue(
                    Self.contains(examples, run: lines),
                    "\(block.file):\(block.line): the swift block starting with `\(lines[0])` is not in Tests/DocumentationExamplesTests (line for line, ignoring indentation); add it to the article's test, or mark a Package.swift snippet with \(Self.uncheckedMarker)")
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 60, "only \(checked) swift blocks were found: is the extraction broken?")
    }

    func testTheExtractionItself() {
        let text = """
            Intro.

            ```swift
              let a = 1

              let b = 2 // kept
            ```

            <!-- unchecked -->
            ```swift
            dependencies: []
            ```

            ```sh
            swift run
            ```

            ```swift
            print(a)
            ```
            """
        let blocks = Self.swiftBlocks(in: text, file: "sample.md")
        XCTAssertEqual(blocks.map(\.line), [3, 18])
        XCTAssertEqual(blocks.map { Self.normalized($0.lines) }, [["let a = 1", "let b = 2 // kept"], ["print(a)"]])
        XCTAssertTrue(Self.contains(["x", "let a = 1", "let b = 2 // kept", "y"], run: ["let a = 1", "let b = 2 // kept"]))
        XCTAssertFalse(Self.contains(["let a = 1", "x", "let b = 2 // kept"], run: ["let a = 1", "let b = 2 // kept"]))
    }
}
