import StoreCore
import StoreTestSupport
import XCTest

final class ObjectHashingTests: XCTestCase {
    /// Sets hash objects by their address, keeping objects that lie in the same 4 KB in
    /// neighbouring buckets: objects made one after another (many to a page) must still meet in
    /// sets and dictionaries by identity alone, and other objects stay apart.
    func testObjectsMadeTogetherMeetInSetsByIdentityAndOthersStayApart() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let posts = try (0..<5_000).map { _ in try Post(context: context) }
            let others = try (0..<1_000).map { _ in try Post(context: context) }
            let set = Set<ManagedObject>(posts)
            XCTAssertEqual(set.count, posts.count)
            XCTAssertEqual(Set<ManagedObject>(posts + posts.reversed()).count, posts.count)
            XCTAssertTrue(posts.allSatisfy { set.contains($0) })
            XCTAssertFalse(others.contains { set.contains($0) })
            var positions: [ManagedObject: Int] = [:]
            for (position, post) in posts.enumerated() { positions[post] = position }
            XCTAssertTrue(posts.enumerated().allSatisfy { positions[$0.element] == $0.offset })
            XCTAssertTrue(others.allSatisfy { positions[$0] == nil })
        }
    }
}
