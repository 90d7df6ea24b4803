import Foundation
import XCTest

/// `stowage demo` with no options, as the README runs it: it says where its store is and how to
/// remove it, and the store is all in that one place.
final class DemoCommandTests: XCTestCase {
    func testTheDemoSaysWhereItsStoreIsAndHowToRemoveIt() throws {
        let result = try runStowage(["demo"])
        XCTAssertEqual(result.status, 0, result.output)
        let marker = "remove it with: rm -r '"
        let tail = try XCTUnwrap(result.output.range(of: marker).map { result.output[$0.upperBound...] }, result.output)
        let folder = URL(fileURLWithPath: String(tail.prefix { $0 != "'" }))
        defer { try? FileManager.default.removeItem(at: folder) }
        XCTAssertTrue(folder.lastPathComponent.hasPrefix("stowage-demo-"), folder.path)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertTrue(files.contains("Demo.sqlite"), "\(files)")
        XCTAssertTrue(result.output.contains("stowage inspect \(folder.path)/Demo.sqlite"), result.output)
    }

    func testAnInMemoryDemoWritesNothing() throws {
        let result = try runStowage(["demo", "--store", "memory"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("nothing was written"), result.output)
    }
}
