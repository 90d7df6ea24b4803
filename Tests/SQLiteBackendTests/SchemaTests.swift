import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport

final class SchemaTests: XCTestCase {
    func testEntityTablesFollowCoreDataNaming() throws {
        let schema = SQLiteSchema(model: try BlogModel.make())
        let post = try schema.table(for: "Post")
        XCTAssertEqual(post.table, "ZPOST")
        XCTAssertEqual(post.column(for: "title")?.name, "ZTITLE")
    }
}
