import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

final class SchemaTests: XCTestCase {
    func testEntityTablesFollowCoreDataNaming() throws {
        let schema = SQLSchema(model: try BlogModel.make())
        let post = try schema.table(for: "Post")
        XCTAssertEqual(post.table, "ZPOST")
        XCTAssertEqual(post.column(for: "title")?.name, "ZTITLE")
    }
}

extension SchemaTests {
    func testACompositesElementsAreColumnsNamedByTheirKeyPath() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Quake") {
                .attribute("code", .string)
                .composite("location", elements: .attribute("latitude", .double).composite("source", elements: .attribute("network", .string)))
            }
        }
        let quake = try SQLSchema(model: model).table(for: "Quake")
        XCTAssertEqual(quake.column(for: "location.latitude")?.name, "ZLOCATION_LATITUDE")
        XCTAssertEqual(quake.column(for: "location.source.network")?.name, "ZLOCATION_SOURCE_NETWORK")
        XCTAssertNil(quake.column(for: "location"), "the composite itself has no column")
    }
}
