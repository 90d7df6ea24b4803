import Foundation
import XCTest

/// Lists in the documentation that must follow the code they describe: what runs on PostgreSQL
/// (docs/postgres.md) and the checks `StowageTestKit` offers (docs/writing-a-store.md).
final class DocumentationClaimsTests: XCTestCase {
    private static let packageRoot = DocumentationSyncTests.packageRoot

    private func text(_ path: String) throws -> String {
        try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The distinct matches of the first capture group of `pattern` in `text`, in order.
    static func captures(_ pattern: String, in text: String) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        var found: [String] = []
        for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range(at: 1), in: text) else { continue }
            let name = String(text[range])
            if !found.contains(name) { found.append(name) }
        }
        return found
    }

    func testThePostgresPageNamesEveryCheckAndSuiteThatRunsOnTheServer() throws {
        let page = try text("docs/postgres.md")
        let shared = try Self.captures("kit\\(\\)\\.(check[A-Za-z]+)\\(\\)", in: try text("Tests/PostgresBackendTests/PostgresSharedSuiteTests.swift"))
        XCTAssertGreaterThanOrEqual(shared.count, 5, "the shared suite's checks were not found: is the extraction broken?")
        for check in shared {
            XCTAssertTrue(page.contains("`\(check)()`"), "docs/postgres.md does not say that `\(check)()` runs on PostgreSQL")
        }
        let suites = try FileManager.default.contentsOfDirectory(atPath: Self.packageRoot.appendingPathComponent("Tests/PostgresBackendTests").path)
            .filter { $0.hasSuffix("Tests.swift") }
        let processSuites = try FileManager.default.contentsOfDirectory(atPath: Self.packageRoot.appendingPathComponent("Tests/StowageTests").path)
            .filter { $0.hasPrefix("Postgres") && $0.hasSuffix("Tests.swift") }
        XCTAssertFalse(suites.isEmpty)
        for suite in (suites + processSuites).sorted() {
            XCTAssertTrue(page.contains(suite), "docs/postgres.md does not name \(suite), which runs against PostgreSQL (or without it)")
        }
    }

    func testTheStoreTestKitTableNamesEveryCheck() throws {
        let checks = try Self.captures("public func (check[A-Za-z]+)\\(\\)", in: try text("Sources/StowageTestKit/StoreTestKit+Checks.swift"))
        XCTAssertGreaterThanOrEqual(checks.count, 5, "the kit's checks were not found: is the extraction broken?")
        let page = try text("docs/writing-a-store.md")
        for check in checks {
            XCTAssertTrue(page.contains("| `\(check)()` |"), "docs/writing-a-store.md's table of checks lacks `\(check)()`")
        }
    }

    func testTheExtractionItself() throws {
        XCTAssertEqual(
            try Self.captures("kit\\(\\)\\.(check[A-Za-z]+)\\(\\)", in: "a.kit().checkA() b.kit().checkB() c.kit().checkA() kit.checkC()"),
            ["checkA", "checkB"])
    }
}
