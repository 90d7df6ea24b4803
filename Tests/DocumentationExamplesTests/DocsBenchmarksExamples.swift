import Foundation
import Stowage
import XCTest

/// docs/benchmarks.md, "Cold builds": the client's one line, which lists the store
/// types `import Stowage` registers.
final class DocsBenchmarksExamples: XCTestCase {
    func testTheClientListsTheBuiltInStoreTypes() {
        _ = printed.take()
        print(PersistentStoreRegistry.registeredTypes.map(\.rawValue))
        let line = printed.take().first ?? ""
        for type in [PersistentStoreType.sqlite, .xml, .binary, .inMemory] {
            XCTAssertTrue(line.contains("\"\(type.rawValue)\""), "\(line) lacks \(type.rawValue)")
        }
    }
}
