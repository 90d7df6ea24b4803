import Foundation
import XCTest

/// Keeps the documentation's pointers honest: every file or folder of this repository that
/// README.md, a page of docs/ or a DocC article names must exist.
///
/// What counts as a named path:
/// - a path from the package's root (`Tests/…`, `Sources/…`, `docs/…`, `scripts/…`,
///   `Benchmarks/…`, `Fuzz/…`, `.ci/…`), with `*` standing for any characters of one name;
/// - a path inside a module (`StoreCore/Store/PersistentStore.swift`), below `Sources/`;
/// - a Swift file named alone or by its end (`RecordingDriver.swift`, `+Uniquing.swift`,
///   `Context/ManagedObjectContext+Faulting.swift`): some file of the repository must end so;
/// - a Markdown link to a file (`[x](batch-and-history.md#anchor)`), from the page's folder.
///
/// Build products (anything under a `.build` folder) are not checked: they exist only once built.
final class DocumentationPathTests: XCTestCase {
    private static let packageRoot = DocumentationSyncTests.packageRoot

    /// The root folders a path from the package's root starts with.
    static let roots = ["Tests", "Sources", "docs", "scripts", "Benchmarks", "Fuzz", ".ci"]

    /// Paths that are not this repository's: a project named like a file (GRDB's repository,
    /// `GRDB.swift`) and the client package docs/benchmarks.md builds beside it.
    static let elsewhere: Set<String> = ["GRDB.swift", "Sources/Client/main.swift"]

    /// A path a page names, and where.
    struct NamedPath: Equatable {
        enum Kind: Equatable {
            case fromRoot, inModule, swiftFileEnding, link
        }
        let path: String
        let kind: Kind
        let line: Int
    }

    /// The paths a Markdown text names (see the type's documentation). `modules` are the folder
    /// names under Sources/.
    static func namedPaths(in text: String, modules: [String]) -> [NamedPath] {
        // A path character: letters, digits and `_ . / + * -`. A path starts after anything else.
        let pathCharacters = "A-Za-z0-9_./+*-"
        let rootPattern = "(?<![\(pathCharacters)])(?:" + (roots + modules).map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
            + ")/[\(pathCharacters)]*"
        let swiftPattern = "(?<![\(pathCharacters)])[\(pathCharacters)]*\\.swift(?![A-Za-z0-9_])"
        let linkPattern = "\\]\\(([^)\\s]+)\\)"
        var found: [NamedPath] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let range = NSRange(line.startIndex..., in: line)
            var claimed: [Range<String.Index>] = []
            for match in matches(rootPattern, in: line, range: range) {
                guard let bounds = Range(match.range, in: line) else { continue }
                claimed.append(bounds)
                let path = trimmed(String(line[bounds]))
                guard !path.split(separator: "/").contains(".build"), !elsewhere.contains(path) else { continue }
                let first = String(path.prefix { $0 != "/" })
                found.append(NamedPath(path: path, kind: roots.contains(first) ? .fromRoot : .inModule, line: index + 1))
            }
            for match in matches(swiftPattern, in: line, range: range) {
                guard let bounds = Range(match.range, in: line), !claimed.contains(where: { $0.overlaps(bounds) }) else { continue }
                let path = trimmed(String(line[bounds]))
                guard !path.hasPrefix("/"), !elsewhere.contains(path), !path.contains("*") else { continue }
                found.append(NamedPath(path: path, kind: .swiftFileEnding, line: index + 1))
            }
            for match in matches(linkPattern, in: line, range: range) {
                guard let bounds = Range(match.range(at: 1), in: line) else { continue }
                let target = String(line[bounds])
                guard !target.contains("://"), !target.hasPrefix("#"), !target.hasPrefix("mailto:"), !target.hasPrefix("doc:") else { continue }
                let path = String(target.prefix { $0 != "#" })
                found.append(NamedPath(path: path, kind: .link, line: index + 1))
            }
        }
        return found
    }

    private static func matches(_ pattern: String, in line: String, range: NSRange) -> [NSTextCheckingResult] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        return expression.matches(in: line, range: range)
    }

    /// A path without the punctuation a sentence puts after it.
    private static func trimmed(_ path: String) -> String {
        var path = path
        while let last = path.last, ".,;:/".contains(last) { path.removeLast() }
        return path
    }

    /// Whether `path` (relative to `folder`, `*` matching any characters of one name) exists.
    static func exists(_ path: String, in folder: URL) -> Bool {
        guard path.contains("*") else {
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path)
        }
        let parent = (path as NSString).deletingLastPathComponent
        let pattern = (path as NSString).lastPathComponent
        let parts = pattern.components(separatedBy: "*")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(parent).path)) ?? []
        return names.contains { name in
            guard let first = parts.first, let last = parts.last, name.hasPrefix(first), name.hasSuffix(last),
                  name.count >= first.count + last.count else { return false }
            var rest = Substring(name.dropFirst(first.count).dropLast(last.count))
            for part in parts.dropFirst().dropLast() {
                guard let found = rest.range(of: part) else { return false }
                rest = rest[found.upperBound...]
            }
            return true
        }
    }

    /// Every file of the repository's Sources, Tests, Benchmarks and Fuzz folders, relative to the root.
    private func repositoryFiles() throws -> [String] {
        var files: [String] = []
        for root in ["Sources", "Tests", "Benchmarks", "Fuzz", "scripts"] {
            let url = Self.packageRoot.appendingPathComponent(root, isDirectory: true)
            guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in enumerator {
                let path = file.path.replacingOccurrences(of: Self.packageRoot.path + "/", with: "")
                if path.split(separator: "/").contains(".build") { continue }
                files.append(path)
            }
        }
        return files
    }

    func testEveryPathTheDocumentationNamesExists() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.packageRoot.appendingPathComponent("Sources").path)
        let files = try repositoryFiles()
        var checked = 0
        for url in try DocumentationSyncTests.documentationFiles() {
            let name = url.path.replacingOccurrences(of: Self.packageRoot.path + "/", with: "")
            let folder = url.deletingLastPathComponent()
            for named in Self.namedPaths(in: try String(contentsOf: url, encoding: .utf8), modules: modules) {
                checked += 1
                let found: Bool
                switch named.kind {
                case .fromRoot: found = Self.exists(named.path, in: Self.packageRoot)
                case .inModule: found = Self.exists(named.path, in: Self.packageRoot.appendingPathComponent("Sources"))
                case .swiftFileEnding: found = files.contains { $0.hasSuffix("/" + named.path) || (named.path.hasPrefix("+") && $0.hasSuffix(named.path)) }
                case .link: found = named.path.isEmpty || Self.exists(named.path, in: folder)
                }
                XCTAssertTrue(found, "\(name):\(named.line) names `\(named.path)`, which is not in the repository")
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 100, "only \(checked) paths were found: is the extraction broken?")
    }

    func testTheExtractionItself() {
        let text = """
            See `Tests/StoreSQLTests/RecordingDriver.swift`, (Sources/StoreCore/Context/).
            The shared table, `Sources/StowageTestKit/QueryCases/QueryCases+*.swift`; `StoreCore/Store/PersistentStore.swift`.
            Helpers in `+Uniquing.swift` and RecordingDriver.swift, not GRDB.swift nor /tmp/x.swift;
            [history](batch-and-history.md#where-it-is-kept), [a site](https://example.com/a.md), [here](#anchor).
            Benchmarks/.build/release/stowage-bench and Sources/Client/main.swift are not checked.
            """
        let paths = Self.namedPaths(in: text, modules: ["StoreCore"])
        XCTAssertEqual(paths.map(\.path), [
            "Tests/StoreSQLTests/RecordingDriver.swift", "Sources/StoreCore/Context",
            "Sources/StowageTestKit/QueryCases/QueryCases+*.swift", "StoreCore/Store/PersistentStore.swift",
            "+Uniquing.swift", "RecordingDriver.swift",
            "batch-and-history.md",
        ])
        XCTAssertEqual(paths.map(\.kind), [.fromRoot, .fromRoot, .fromRoot, .inModule, .swiftFileEnding, .swiftFileEnding, .link])
        XCTAssertEqual(paths.map(\.line), [1, 1, 2, 2, 3, 3, 4])

        XCTAssertTrue(Self.exists("Sources/StowageTestKit/QueryCases/QueryCases+*.swift", in: Self.packageRoot))
        XCTAssertFalse(Self.exists("Tests/StoreTestSupport/Query/QueryCases+*.swift", in: Self.packageRoot))
        XCTAssertFalse(Self.exists("Tests/StowageTests/BatchRequestTests.swift", in: Self.packageRoot))
    }
}
