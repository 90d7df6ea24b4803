import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// A fetch naming a key its entity does not have is refused the same way on every store type,
/// even when the store holds no object to evaluate it on.
final class EmptyStoreFetchCheckTests: XCTestCase {
    private func containers(in directory: TemporaryDirectory) throws -> [(String, PersistentContainer)] {
        [
            ("memory", try TestStack.container()),
            ("sqlite", try TestStack.sqliteContainer(at: directory.file("Blog.sqlite"))),
            ("xml", try TestStack.xmlContainer(at: directory.file("Blog.xml"))),
            ("binary", try TestStack.binaryContainer(at: directory.file("Blog.binary"))),
        ]
    }

    func testUnknownKeysAreRefusedOnAnEmptyStore() throws {
        let directory = try TemporaryDirectory()
        for (type, container) in try containers(in: directory) {
            let context = container.newBackgroundContext()
            context.performAndWait {
                func code(_ configure: (inout FetchRequest<Post>) throws -> Void) -> FetchError.Code? {
                    do {
                        var request = FetchRequest<Post>()
                        try configure(&request)
                        _ = try context.fetch(request)
                        return nil
                    } catch {
                        return (error as? FetchError)?.code
                    }
                }
                XCTAssertEqual(code { $0.predicate = try .format("titel == 'x'") }, .invalidKeyPath, type)
                XCTAssertEqual(code { $0.predicate = try .format("author.nam == 'x'") }, .invalidKeyPath, type)
                XCTAssertEqual(code { $0.predicate = try .format("ANY comments.txt == 'x'") }, .invalidKeyPath, type)
                XCTAssertEqual(code { $0.sortDescriptors = [.ascending("titel")] }, .invalidKeyPath, type)
                // Known paths, collection operators and subqueries still run (and find nothing).
                XCTAssertNil(code { $0.predicate = try .format("author.name == 'x' AND comments.@count > 1 AND SUBQUERY(comments, $c, $c.text == 'y').@count > 0") }, type)
                XCTAssertNil(code { $0.sortDescriptors = [.ascending("author.name")] }, type)
            }
        }
    }
}
