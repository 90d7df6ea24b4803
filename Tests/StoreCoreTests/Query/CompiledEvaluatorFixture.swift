import Foundation
@testable import StoreCore

/// A graph of items with awkward values for comparing the compiled evaluator with the tree
/// walker: every attribute type, NULLs, NaN, mixed numeric kinds, strings that differ only in
/// case or diacritics, combining marks, "\r\n", NUL, a Kelvin sign; owners (to-one) and tags
/// (to-many); and, under the abstract Media, two sub-entities, Book and Film, that both declare
/// `code` at different property indexes.
struct CompiledEvaluatorFixture {
    let model: ManagedObjectModel
    let graph: SnapshotGraph
    let ids: [String: ManagedObjectID]

    static let itemKeys = ["i", "d", "f", "n", "b", "s", "t", "bytes", "u"]
    static let uuid = UUID(uuidString: "6B1C7E2A-1D3F-4C5B-9A8E-7F6D5C4B3A21") ?? UUID()

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("i", .integer64)
                .attribute("d", .double)
                .attribute("f", .float)
                .attribute("n", .decimal)
                .attribute("b", .boolean)
                .attribute("s", .string)
                .attribute("t", .date)
                .attribute("bytes", .binaryData)
                .attribute("u", .uuid)
                .toOne("owner", destination: "Owner", inverse: "items")
                .toMany("tags", destination: "Tag", inverse: "items")
            }
            EntityDescription("Media", parent: "Item", isAbstract: true) {
                .attribute("title", .string)
            }
            EntityDescription("Book", parent: "Media") {
                .attribute("isbn", .string)
                .attribute("code", .string)
            }
            EntityDescription("Film", parent: "Media") {
                .attribute("code", .string)
                .attribute("minutes", .integer32)
            }
            EntityDescription("Owner") {
                .attribute("name", .string)
                .toMany("items", destination: "Item", inverse: "owner")
            }
            EntityDescription("Tag") {
                .attribute("name", .string)
                .toMany("items", destination: "Item", inverse: "tags")
            }
        }
    }

    init() throws {
        model = try Self.makeModel()
        var ids: [String: ManagedObjectID] = [:]
        var key: Int64 = 0
        var snapshots: [StoreSnapshot] = []
        let model = self.model
        func id(_ name: String, _ entity: String) -> ManagedObjectID {
            if let known = ids[name] { return known }
            key += 1
            let id = ManagedObjectID(entityName: entity, storeIdentifier: "FIXTURE", primaryKey: key)
            ids[name] = id
            return id
        }
        func add(_ name: String, _ entity: String, _ values: [String: StoreValue], _ toMany: [String: [String]] = [:]) throws {
            let entityDescription = try model.entity(named: entity)
            let references = toMany.mapValues { names in names.map { id($0, $0.hasPrefix("tag") ? "Tag" : "Item") } }
            snapshots.append(try StoreSnapshot(
                objectID: id(name, entity), version: 1, entity: entityDescription,
                values: values.filter { !$0.value.isNull }, toMany: references))
        }
        let owner1 = id("owner1", "Owner"), owner2 = id("owner2", "Owner")
        func date(_ seconds: Double) -> StoreValue { .date(Date(timeIntervalSinceReferenceDate: seconds)) }
        let items: [(String, String, [String: StoreValue], [String])] = [
            ("r1", "Item", ["i": 1, "d": 1.0, "f": .float(1), "n": .decimal(1), "b": true, "s": "ab", "t": date(0),
                            "bytes": .data(Data([1, 2])), "u": .uuid(Self.uuid), "owner": .objectID(owner1)], ["tag1", "tag2"]),
            ("r2", "Item", ["i": 2, "d": 2.5, "f": .float(0.5), "n": .decimal(Decimal(string: "2.5") ?? 2), "b": false, "s": "AB",
                            "t": date(100), "bytes": .data(Data([1])), "owner": .objectID(owner2)], ["tag2"]),
            ("r3", "Item", ["i": -3, "d": .double(.nan), "f": .float(.nan), "n": .decimal(-1), "s": "Åb", "t": date(200),
                            "owner": .objectID(owner1)], []),
            ("r4", "Item", [:], []),
            ("r5", "Item", ["i": .integer(.max), "d": 9.2e18, "s": "e\u{301}", "b": true], []),
            ("r6", "Item", ["i": 0, "d": -0.0, "f": .float(-0.0), "s": "é", "b": false], ["tag1"]),
            ("r7", "Item", ["i": 3, "d": 3, "s": "a\r\nb"], []),
            ("r8", "Item", ["i": 2, "d": 2, "s": "\r\n"], []),
            ("r9", "Item", ["i": 1, "s": "a\0b"], []),
            ("r10", "Item", ["i": 10, "s": ""], []),
            ("r11", "Item", ["s": "\u{212A}elvin", "d": 1.5], []),
            ("r12", "Item", ["s": "California, USA, a longer string", "i": 25, "d": 25.0], []),
            ("r13", "Item", ["s": "ÇA va", "i": 2], []),
            ("r14", "Item", ["s": "A*B", "i": 2], []),
            ("b1", "Book", ["title": "Dune", "s": "book", "isbn": "123", "code": "x", "i": 1, "d": 2.5, "owner": .objectID(owner2)], ["tag1"]),
            ("b2", "Book", ["isbn": "X", "i": 7], []),
            ("f1", "Film", ["title": "Dune", "code": "x", "minutes": 90, "s": "film", "i": 2], ["tag2"]),
            ("f2", "Film", ["code": "Y", "minutes": 120, "d": 2.5], []),
        ]
        for (name, entity, values, tags) in items { try add(name, entity, values, tags.isEmpty ? [:] : ["tags": tags]) }
        try add("owner1", "Owner", ["name": "Ada"], ["items": ["r1", "r3"]])
        try add("owner2", "Owner", ["name": "bob"], ["items": ["r2", "b1"]])
        try add("tag1", "Tag", ["name": "red"], ["items": ["r1", "r6", "b1"]])
        try add("tag2", "Tag", ["name": "Blue"], ["items": ["r1", "r2", "f1"]])
        var graph = SnapshotGraph(model: model)
        graph.load(snapshots)
        self.graph = graph
        self.ids = ids
    }

    /// Every item, book and film, as the graph holds them (entity by entity).
    var items: [StoreSnapshot] {
        graph.allSnapshots.filter { ["Item", "Book", "Film"].contains($0.objectID.entityName) }
    }

    /// The by-name view the tree walker reads.
    func source(_ snapshot: StoreSnapshot) -> SnapshotSource {
        let graph = self.graph
        return SnapshotSource(snapshot: snapshot, model: model, resolve: { graph[$0] })
    }
}

/// What an evaluation gave: an answer, or an error by its code and message.
enum Outcome: Equatable, CustomStringConvertible {
    case answer(Bool)
    case failure(String)

    init(_ body: () throws -> Bool) {
        do {
            self = .answer(try body())
        } catch let error as FetchError {
            self = .failure("\(error.code): \(error.message)")
        } catch {
            self = .failure("\(error)")
        }
    }

    var description: String {
        switch self {
        case .answer(let value): "\(value)"
        case .failure(let message): "error \(message)"
        }
    }
}
