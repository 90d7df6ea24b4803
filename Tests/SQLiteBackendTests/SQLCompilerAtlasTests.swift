import Foundation
import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// A second fixture with what the query fixture lacks: an entity hierarchy sharing a table
/// (Post, Article), a many-to-many relationship through a join table (tags), a to-one whose
/// destination has sub-entities (Author.favorite), an R-tree index and a partial index.
enum AtlasFixture {
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post", indexes: [
                FetchIndexDescription(name: "byLocation", elements: [.init("latitude"), .init("longitude")], kind: .rTree),
                FetchIndexDescription(name: "popularTitles", elements: [.init("title")], partialIndexPredicate: "title != nil AND views >= 10 AND title != \"it's\""),
            ]) {
                .attribute("title", .string)
                .attribute("latitude", .double)
                .attribute("longitude", .double)
                .attribute("views", .integer64)
                .attribute("uuid", .uuid)
                .attribute("published", .date)
                .toMany("tags", destination: "Tag", inverse: "posts")
                .toOne("author", destination: "Author", inverse: "posts")
                .toMany("fans", destination: "Author", inverse: "favorite")
            }
            EntityDescription("Article", parent: "Post") {
                .attribute("summary", .string)
            }
            EntityDescription("Tag") {
                .attribute("name", .string)
                .toMany("posts", destination: "Post", inverse: "tags")
            }
            EntityDescription("Author") {
                .attribute("name", .string)
                .toMany("posts", destination: "Post", inverse: "author")
                .toOne("favorite", destination: "Post", inverse: "fans")
            }
        }
    }

    static let uuid = UUID(uuidString: "2F1E1A9C-0000-4000-8000-000000000001") ?? UUID()

    /// Snapshots and the IDs by name (`p1`…`p7`, `history`, `travel`, `food`, `ada`, `bob`).
    static func make() throws -> (model: ManagedObjectModel, snapshots: [StoreSnapshot], ids: [String: ManagedObjectID]) {
        let model = try makeModel()
        var ids: [String: ManagedObjectID] = [:]
        var key: Int64 = 0
        for (name, entity) in [("p1", "Post"), ("p2", "Article"), ("p3", "Post"), ("p4", "Article"), ("p5", "Post"), ("p6", "Post"), ("p7", "Article"),
                               ("history", "Tag"), ("travel", "Tag"), ("food", "Tag"), ("ada", "Author"), ("bob", "Author")] {
            key += 1
            ids[name] = ManagedObjectID(entityName: entity, storeIdentifier: "ATLAS", primaryKey: key)
        }
        func ref(_ name: String?) -> StoreValue { name.flatMap { ids[$0] }.map(StoreValue.objectID) ?? .null }
        var snapshots: [StoreSnapshot] = []
        func add(_ name: String, _ values: [String: StoreValue], _ toMany: [String: [String]] = [:]) {
            guard let id = ids[name], let entity = model.entitiesByName[id.entityName],
                let snapshot = try? StoreSnapshot(
                    objectID: id, version: 1, entity: entity, values: values.filter { !$0.value.isNull },
                    toMany: toMany.mapValues { $0.compactMap { ids[$0] } })
            else { return XCTFail("the atlas fixture names a property \(name)'s entity does not have") }
            snapshots.append(snapshot)
        }
        func post(_ name: String, _ title: StoreValue, _ lat: StoreValue, _ lon: StoreValue, _ views: Int64, _ author: String?, _ tags: [String], summary: StoreValue = .null, fans: [String] = []) {
            add(name, ["title": title, "latitude": lat, "longitude": lon, "views": .integer(views), "author": ref(author), "summary": summary,
                       "uuid": name == "p1" ? .uuid(uuid) : .null, "published": .date(Date(timeIntervalSinceReferenceDate: Double(views) * 100))],
                ["tags": tags, "fans": fans])
        }
        post("p1", "Great Wall", 40.4, 116.6, 120, "ada", ["history", "travel"])
        post("p2", "Shanghai nights", 31.2, 121.5, 5, "bob", ["travel"], summary: "lights", fans: ["ada"])
        post("p3", "Paris", 48.9, 2.35, 50, "ada", [], fans: ["bob"])
        post("p4", "Lhasa", 29.65, 91.1, 10, nil, ["history"])
        post("p5", .null, .null, .null, 0, nil, [])
        post("p6", "it's 100% _real_ *", 18.0, 73.0, 7, "bob", [])
        post("p7", "Sydney", -33.9, 151.2, 30, nil, [], summary: "harbour")
        add("history", ["name": "history"], ["posts": ["p1", "p4"]])
        add("travel", ["name": "travel"], ["posts": ["p1", "p2"]])
        add("food", ["name": "food"], ["posts": []])
        add("ada", ["name": "Ada", "favorite": ref("p2")], ["posts": ["p1", "p3"]])
        add("bob", ["name": "Bob", "favorite": ref("p3")], ["posts": ["p2", "p6"]])
        return (model, snapshots, ids)
    }

    static func database() throws -> (CompilerTestDatabase, [String: ManagedObjectID]) {
        let (model, snapshots, ids) = try make()
        return (try CompilerTestDatabase(model: model, snapshots: snapshots, storeIdentifier: "ATLAS"), ids)
    }
}

final class SQLCompilerAtlasTests: XCTestCase {
    private static let postPredicates: [String] = [
        "ANY tags.name == 'travel'",
        "tags.@count == 0",
        "NONE tags.name == 'history'",
        "ALL tags.name BEGINSWITH 't'",
        "SUBQUERY(tags, $t, $t.posts.@count > 1).@count > 1",
        "tags.posts.@count == 4",
        "ANY tags.posts.title == 'Lhasa'",
        "author.name == 'Ada'",
        "author.posts.@count > 1",
        "ANY author.posts.tags.name == 'history'",
        "ANY fans.favorite.title BEGINSWITH 'S'",
        "fans.@count == 1",
        "author.favorite.title == 'Paris'",
        "author.favorite == author.favorite",
        "author.favorite == SELF",
        "ANY author.favorite.tags.name == 'travel'",
        "views > 20 AND latitude > 0",
        "published > CAST(1000, 'NSDate')",
        "indexed:by:(latitude, 'byLocation') BETWEEN {18, 54} AND indexed:by:(longitude, 'byLocation') BETWEEN {73, 135}",
        "indexed:by:(latitude, 'byLocation') > 30",
        "indexed:by:(latitude, 'byLocation') < 0",
        "indexed:by:(latitude, 'byLocation') >= 40.4",
        "indexed:by:(latitude, 'byLocation') <= 18",
        "indexed:by:(latitude, 'byLocation') == 48.9",
        "30 < indexed:by:(latitude, 'byLocation') AND views > 0",
        "indexed:by:(latitude, 'byLocation') > 30 OR views > 100",
        "NOT indexed:by:(latitude, 'byLocation') > 30",
        "indexed:by:(title, 'popularTitles') == 'Paris'",
        "indexed:by:(title, 'byLocation') == 'Paris'",
    ]

    func testHierarchiesJoinTablesAndIndexesMatchTheSameObjectsAsInMemory() throws {
        let (database, _) = try AtlasFixture.database()
        for entity in ["Post", "Article"] {
            for subentities in [true, false] {
                for format in Self.postPredicates {
                    var request = StoreFetchRequest(entityName: entity)
                    request.predicate = try StorePredicate(format: format)
                    request.includesSubentities = subentities
                    request.sortDescriptors = [.ascending("title")]
                    let sql = try database.compiler.selectObjects(request, columns: ["t0.Z_PK"])
                    XCTAssertEqual(try database.objectIDs(request), try database.memoryObjectIDs(request), "\(entity) \(subentities) \(format)\n  \(sql.sql)")
                }
            }
        }
        for format in ["summary == 'lights'", "summary == nil", "summary != nil AND ANY tags.name == 'travel'"] {
            var request = StoreFetchRequest(entityName: "Article")
            request.predicate = try StorePredicate(format: format)
            XCTAssertEqual(Set(try database.objectIDs(request)), Set(try database.memoryObjectIDs(request)), format)
        }
    }

    func testObjectIDsMatchOnlyTheirOwnEntity() throws {
        let (database, ids) = try AtlasFixture.database()
        func id(_ name: String) -> ManagedObjectID { ids[name] ?? ManagedObjectID(entityName: "Post", storeIdentifier: "ATLAS", primaryKey: 999) }
        // p2 is an Article: an ID naming it as a Post (same key) is another object.
        let postNamedP2 = ManagedObjectID(entityName: "Post", storeIdentifier: "ATLAS", primaryKey: id("p2").primaryKey ?? 0)
        let cases: [(String, [Any])] = [
            ("SELF == %@", [id("p2")]),
            ("SELF == %@", [postNamedP2]),
            ("SELF IN %@", [[id("p1"), postNamedP2, id("p4"), id("history")]]),
            ("SELF != %@", [postNamedP2]),
            ("%@ IN tags", [id("history")]),
            ("ANY tags == %@", [id("travel")]),
            ("tags CONTAINS %@", [id("food")]),
            ("NOT tags CONTAINS %@", [id("history")]),
            ("author == %@", [id("ada")]),
            ("author != %@", [id("ada")]),
            ("author IN %@", [[id("bob"), StoreValue.null]]),
            ("ANY fans.favorite == %@", [id("p2")]),
            ("ANY fans.favorite == %@", [postNamedP2]),
            ("ANY fans.favorite IN %@", [[postNamedP2, id("p3")]]),
            ("uuid == %@", [AtlasFixture.uuid]),
            ("uuid != %@", [AtlasFixture.uuid]),
            ("published BETWEEN %@", [[Date(timeIntervalSinceReferenceDate: 500), Date(timeIntervalSinceReferenceDate: 5000)]]),
        ]
        for (format, arguments) in cases {
            var request = StoreFetchRequest(entityName: "Post")
            request.predicate = try StorePredicate(format: format, argumentArray: arguments)
            XCTAssertEqual(Set(try database.objectIDs(request)), Set(try database.memoryObjectIDs(request)), format)
        }
        var request = StoreFetchRequest(entityName: "Post")
        request.predicate = try StorePredicate(format: "SELF == %@", postNamedP2)
        XCTAssertEqual(try database.objectIDs(request), [])
        request.predicate = try StorePredicate(format: "SELF == %@", id("p2"))
        XCTAssertEqual(try database.objectIDs(request), [id("p2")])
    }

    func testDictionaryColumnsReadObjectsOfTheRightEntity() throws {
        let (database, ids) = try AtlasFixture.database()
        var request = StoreFetchRequest(entityName: "Author", resultType: .dictionary)
        request.propertiesToFetch = ["name", "favorite", "favorite.title"]
        request.sortDescriptors = [.ascending("name")]
        let rows = try database.dictionaries(request)
        XCTAssertEqual(rows, try database.memoryDictionaries(request))
        XCTAssertEqual(rows.first?["favorite"], ids["p2"].map(StoreValue.objectID), "p2 is an Article")

        var grouped = StoreFetchRequest(entityName: "Post", resultType: .dictionary)
        grouped.propertiesToFetch = ["author", .expression(ExpressionDescription(name: "views", expression: .function("sum:", [.keyPath("views")])))]
        grouped.propertiesToGroupBy = ["author"]
        grouped.sortDescriptors = [.descending("views")]
        XCTAssertEqual(try database.dictionaries(grouped), try database.memoryDictionaries(grouped))

        var fans = StoreFetchRequest(entityName: "Author", resultType: .dictionary)
        fans.propertiesToFetch = ["favorite"]
        fans.returnsDistinctResults = true
        XCTAssertEqual(try database.dictionaries(fans), try database.memoryDictionaries(fans))
    }

    func testSeedQueryDoesOneRTreeLookup() throws {
        let (database, ids) = try AtlasFixture.database()
        var request = StoreFetchRequest(entityName: "Post")
        request.predicate = try StorePredicate(format: "indexed:by:(latitude, \"byLocation\") BETWEEN {18, 54} AND indexed:by:(longitude, \"byLocation\") BETWEEN {73, 135}")
        request.sortDescriptors = [.ascending("title")]
        let query = try database.compiler.selectObjects(request, columns: ["t0.Z_PK"])
        XCTAssertEqual(query.sql.components(separatedBy: "\"Z_Post_byLocation\"").count - 1, 1, query.sql)
        XCTAssertTrue(query.sql.contains("t0.Z_PK IN (SELECT Z_PK FROM \"Z_Post_byLocation\" WHERE ZLATITUDE_MAX >= ?1 AND ZLATITUDE_MIN <= ?2 AND ZLONGITUDE_MAX >= ?3 AND ZLONGITUDE_MIN <= ?4)"), query.sql)
        var plan: [String] = []
        try database.connection.query("EXPLAIN QUERY PLAN " + query.sql, query.bindings) { row in plan.append(row.string(at: 3) ?? "") }
        XCTAssertTrue(plan.contains { $0.contains("Z_Post_byLocation VIRTUAL TABLE") }, plan.joined(separator: "\n"))
        // Posts inside continental China, the boundary included; Sydney and Paris are not.
        XCTAssertEqual(try database.objectIDs(request), ["p1", "p4", "p2", "p6"].compactMap { ids[$0] })
    }

    func testBoundValuesMatchLiterallyWithoutWildcards() throws {
        let (database, ids) = try AtlasFixture.database()
        let title = "it's 100% _real_ *"
        let cases: [(String, [Any], [String])] = [
            ("title == %@", [title], ["p6"]),
            ("title CONTAINS %@", ["%"], ["p6"]),
            ("title CONTAINS %@", ["_"], ["p6"]),
            ("title BEGINSWITH %@", ["it's"], ["p6"]),
            ("title ENDSWITH %@", ["*"], ["p6"]),
            ("title BEGINSWITH %@", ["%"], []),
            ("title ==[c] %@", ["IT'S 100% _REAL_ *"], ["p6"]),
            ("title LIKE %@", ["*100% _real_ \\*"], ["p6"]),
            ("title LIKE %@", ["%"], []),
            ("title LIKE %@", ["it_s*"], []),
            ("title IN %@", [[title, "x'); DROP TABLE ZPOST; --"]], ["p6"]),
        ]
        for (format, arguments, expected) in cases {
            var request = StoreFetchRequest(entityName: "Post")
            request.predicate = try StorePredicate(format: format, argumentArray: arguments)
            let query = try database.compiler.selectObjects(request, columns: ["t0.Z_PK"])
            XCTAssertFalse(query.sql.contains("it's") || query.sql.contains("%") || query.sql.contains("DROP"), query.sql)
            XCTAssertEqual(Set(try database.objectIDs(request)), Set(expected.compactMap { ids[$0] }), format)
            XCTAssertEqual(Set(try database.objectIDs(request)), Set(try database.memoryObjectIDs(request)), format)
        }
    }

    func testLongListsAreBoundAsOneJSONArray() throws {
        let (database, ids) = try AtlasFixture.database()
        var manyIDs: [ManagedObjectID] = (1...5000).map { number in
            ManagedObjectID(entityName: number % 2 == 0 ? "Post" : "Article", storeIdentifier: "ATLAS", primaryKey: Int64(number + 100))
        }
        manyIDs += ["p1", "p2", "p7"].compactMap { ids[$0] }
        var manyTitles: [String] = (1...1000).map { number in "title \(number) \"quoted\" \\ \t é 🌍" }
        manyTitles += ["it's 100% _real_ *", "Paris"]
        let views: [Int] = (0...400).map { $0 * 10 }
        let latitudes: [Double] = [40.4, 48.9] + (1...300).map { Double($0) + 0.5 }
        let upperTitles: [String] = manyTitles.map { $0.uppercased() }
        let cases: [(String, [Any])] = [
            ("SELF IN %@", [manyIDs]),
            ("title IN %@", [manyTitles]),
            ("title IN[c] %@", [upperTitles]),
            ("views IN %@", [views]),
            ("latitude IN %@", [latitudes]),
        ]
        for (format, arguments) in cases {
            var request = StoreFetchRequest(entityName: "Post")
            request.predicate = try StorePredicate(format: format, argumentArray: arguments)
            let query = try database.compiler.selectObjects(request, columns: ["t0.Z_PK"])
            XCTAssertTrue(query.sql.contains("json_each(?1)"), query.sql)
            XCTAssertLessThan(query.bindings.count, 5, format)
            let found = Set(try database.objectIDs(request))
            XCTAssertFalse(found.isEmpty, format)
            XCTAssertEqual(found, Set(try database.memoryObjectIDs(request)), format)
        }
    }

    func testPartialIndexPredicateInlinesEscapedConstants() throws {
        let (database, _) = try AtlasFixture.database()
        let table = try database.schema.table(for: "Post")
        XCTAssertEqual(
            try database.compiler.indexPredicate("title != nil AND views >= 10 AND title != \"it's\"", on: table),
            "(ZTITLE IS NOT NULL AND ZVIEWS >= 10 AND ZTITLE IS NOT 'it''s')")
        XCTAssertEqual(
            try database.compiler.indexPredicate("published > CAST(100, 'NSDate') OR views IN {-9223372036854775808, 2.5} OR uuid == CAST('2F1E1A9C-0000-4000-8000-000000000001', 'NSUUID')", on: table),
            "(ZPUBLISHED > 100.0 OR ZVIEWS IN ((-9223372036854775807 - 1), 2.5) OR ZUUID = X'2F1E1A9C000040008000000000000001')")
        var definition: String?
        try database.connection.query("SELECT sql FROM sqlite_master WHERE name = 'Z_Post_popularTitles'") { row in definition = row.string(at: 0) }
        XCTAssertEqual(definition, "CREATE INDEX \"Z_Post_popularTitles\" ON ZPOST (ZTITLE COLLATE BINARY ASC) WHERE (ZTITLE IS NOT NULL AND ZVIEWS >= 10 AND ZTITLE IS NOT 'it''s')")
        for format in ["title ==[c] 'x'", "author.name == 'x'", "tags.@count > 0", "title LIKE 'a*'"] {
            XCTAssertThrowsError(try database.compiler.indexPredicate(format, on: table), format) { error in
                XCTAssertEqual((error as? FetchError)?.code, .unsupported, "\(format): \(error)")
                XCTAssertTrue("\(error)".contains("partial index"), "\(error)")
            }
        }
    }

    func testWhatCannotCompileThrowsUnsupportedNamingIt() throws {
        let (database, _) = try AtlasFixture.database()
        let cases: [(String, String)] = [
            ("FUNCTION(author, 'description') == 'X'", "FUNCTION"),
            ("tags.name == {'history', 'travel'}", "to-many collection"),
            ("tags == fans", "two to-many collections"),
            ("views BETWEEN tags.posts.views", "BETWEEN"),
            ("frobnicate:(views) == 1", "frobnicate:"),
            ("TERNARY(views > 1, tags, fans).@count == 1", "TERNARY"),
        ]
        for (format, construct) in cases {
            var request = StoreFetchRequest(entityName: "Post")
            request.predicate = try StorePredicate(format: format)
            XCTAssertThrowsError(try database.compiler.selectObjects(request, columns: ["t0.Z_PK"]), format) { error in
                XCTAssertEqual((error as? FetchError)?.code, .unsupported, "\(format): \(error)")
                XCTAssertTrue("\(error)".contains(construct), "\(format): \(error)")
            }
        }
        var dictionary = StoreFetchRequest(entityName: "Post", resultType: .dictionary)
        dictionary.propertiesToFetch = ["tags"]
        XCTAssertThrowsError(try database.compiler.selectDictionaries(dictionary)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .unsupported)
            XCTAssertTrue("\(error)".contains("tags"), "\(error)")
        }
        dictionary.propertiesToFetch = [.expression(ExpressionDescription(name: "m", expression: .function("median:", [.keyPath("tags.posts.views")])))]
        XCTAssertThrowsError(try database.compiler.selectDictionaries(dictionary)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .unsupported)
            XCTAssertTrue("\(error)".contains("median:"), "\(error)")
        }
    }

    func testUnknownKeysFailAsInMemory() throws {
        let (database, _) = try AtlasFixture.database()
        var request = StoreFetchRequest(entityName: "Post")
        request.sortDescriptors = [.ascending("nosuch")]
        XCTAssertThrowsError(try database.compiler.selectObjects(request, columns: ["t0.Z_PK"])) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
        }
        request = StoreFetchRequest(entityName: "Post")
        request.predicate = "author.nosuch == 1"
        XCTAssertThrowsError(try database.compiler.count(request)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
        }
        var dictionary = StoreFetchRequest(entityName: "Post", resultType: .dictionary)
        dictionary.propertiesToFetch = ["nosuch"]
        XCTAssertThrowsError(try database.compiler.selectDictionaries(dictionary)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
        }
        dictionary.propertiesToFetch = ["title"]
        dictionary.havingPredicate = "views > 1"
        XCTAssertThrowsError(try database.compiler.selectDictionaries(dictionary)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
        }
    }
}
