import Foundation
import StoreCore

/// A small earthquake graph the query cases are evaluated against: five quakes (one with every
/// optional value NULL), their reports (a to-many) and regions (a to-one).
///
/// | quake | magnitude | depth | place                  | time  | felt  | code        | alert  | region     | reports |
/// |-------|-----------|-------|------------------------|-------|-------|-------------|--------|------------|---------|
/// | q1    | 6.5       | 10    | Ridgecrest, California | +1000 | true  | ci38457511  | red    | California | p1 p2 p3 |
/// | q2    | 4.2       | 35    | Anchorage, Alaska      | +2000 | false | ak0191      | NULL   | Alaska     | p4      |
/// | q3    | 5.0       | 0     | Résumé Island          | +3000 | true  | NULL        | yellow | NULL       | —       |
/// | q4    | 2.25      | 120   | calexico               | NULL  | false | ci0001      | green  | California | p5 p6   |
/// | q5    | NULL      | NULL  | NULL                   | +500  | NULL  | ""          | NULL   | Alaska     | —       |
///
/// Reports (rating, author, text): p1 (5, ada, "Strong shaking"), p2 (3, bob, "Felt it"),
/// p3 (4, Ćelik, "Çok güçlü"), p4 (1, carol, "nothing"), p5 (2, ada, "meh"), p6 (2, dave, "ok").
/// Regions' ordered `highlights` (inverse `Report.highlightOf`): California [p3, p1, p5] (not in
/// key order), Alaska [p4]. Unordered `reports` and `Region.quakes` hold keys in creation order.
/// Times are seconds after 2001-01-01 (`CAST(1000, "NSDate")`).
///
/// For example:
///
/// ```swift
/// let fixture = try QueryCaseSuite.load(into: store)   // a store of QueryFixture.makeModel()
/// fixture.ids["q1"]                                    // quake q1's object ID
/// ```
public struct QueryFixture: Sendable {
    /// The fixture's model (``makeModel()``): `Quake`, `Report` and `Region`.
    public let model: ManagedObjectModel
    /// The fixture's thirteen objects as snapshots (version 1, to-many relationships included), by ID.
    public let snapshots: [ManagedObjectID: StoreSnapshot]
    /// Each object's ID by its fixture name: quakes `q1`…`q5`, reports `p1`…`p6`, regions `ca` and
    /// `ak`.
    public let ids: [String: ManagedObjectID]

    /// The fixture names of the five quakes, in key order.
    public static let quakeNames = ["q1", "q2", "q3", "q4", "q5"]

    /// A fresh instance of the fixture's model: `Quake` (attributes, a to-one `region`, a to-many
    /// `reports`), `Report` and `Region` (with an ordered to-many `highlights`).
    public static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Quake") {
                .attribute("magnitude", .double)
                .attribute("depth", .integer64)
                .attribute("place", .string)
                .attribute("time", .date)
                .attribute("felt", .boolean)
                .attribute("code", .string)
                .attribute("alert", .string)
                .toOne("region", destination: "Region", inverse: "quakes")
                .toMany("reports", destination: "Report", inverse: "quake")
            }
            EntityDescription("Report") {
                .attribute("rating", .integer64)
                .attribute("author", .string)
                .attribute("text", .string)
                .toOne("quake", destination: "Quake", inverse: "reports")
                .toOne("highlightOf", destination: "Region", inverse: "highlights")
            }
            EntityDescription("Region") {
                .attribute("name", .string)
                .toMany("quakes", destination: "Quake", inverse: "region")
                .toMany("highlights", destination: "Report", inverse: "highlightOf", ordered: true)
            }
        }
    }

    /// The fixture with IDs of the store `storeIdentifier` (keys 1 to 13).
    public init(storeIdentifier: String = "FIXTURE") throws {
        model = try Self.makeModel()
        var ids: [String: ManagedObjectID] = [:]
        var key: Int64 = 0
        func id(_ name: String, _ entity: String) -> ManagedObjectID {
            key += 1
            let id = ManagedObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key)
            ids[name] = id
            return id
        }
        for name in Self.quakeNames { _ = id(name, "Quake") }
        for name in ["p1", "p2", "p3", "p4", "p5", "p6"] { _ = id(name, "Report") }
        for name in ["ca", "ak"] { _ = id(name, "Region") }
        func ref(_ name: String?) -> StoreValue { name.flatMap { ids[$0] }.map(StoreValue.objectID) ?? .null }
        func date(_ seconds: Double?) -> StoreValue { seconds.map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null }

        var snapshots: [ManagedObjectID: StoreSnapshot] = [:]
        var failure: (any Error)?
        let model = self.model
        func add(_ name: String, _ values: [String: StoreValue], _ toMany: [String: [String]] = [:]) {
            guard let objectID = ids[name], let entity = model.entitiesByName[objectID.entityName] else { return }
            do {
                snapshots[objectID] = try StoreSnapshot(
                    objectID: objectID, version: 1, entity: entity, values: values.filter { !$0.value.isNull },
                    toMany: toMany.mapValues { $0.compactMap { ids[$0] } })
            } catch {
                failure = error
            }
        }
        func quake(
            _ name: String, _ magnitude: StoreValue, _ depth: StoreValue, _ place: StoreValue, _ time: Double?,
            _ felt: StoreValue, _ code: StoreValue, _ alert: StoreValue, _ region: String?, _ reports: [String]
        ) {
            add(
                name,
                ["magnitude": magnitude, "depth": depth, "place": place, "time": date(time), "felt": felt, "code": code,
                 "alert": alert, "region": ref(region)],
                ["reports": reports])
        }
        quake("q1", 6.5, 10, "Ridgecrest, California", 1000, true, "ci38457511", "red", "ca", ["p1", "p2", "p3"])
        quake("q2", 4.2, 35, "Anchorage, Alaska", 2000, false, "ak0191", .null, "ak", ["p4"])
        quake("q3", 5.0, 0, "Résumé Island", 3000, true, .null, "yellow", nil, [])
        quake("q4", 2.25, 120, "calexico", nil, false, "ci0001", "green", "ca", ["p5", "p6"])
        quake("q5", .null, .null, .null, 500, .null, "", .null, "ak", [])
        func report(_ name: String, _ rating: Int64, _ author: String, _ text: String, _ quake: String, highlightOf region: String? = nil) {
            add(name, ["rating": .integer(rating), "author": .string(author), "text": .string(text), "quake": ref(quake), "highlightOf": ref(region)])
        }
        report("p1", 5, "ada", "Strong shaking", "q1", highlightOf: "ca")
        report("p2", 3, "bob", "Felt it", "q1")
        report("p3", 4, "Ćelik", "Çok güçlü", "q1", highlightOf: "ca")
        report("p4", 1, "carol", "nothing", "q2", highlightOf: "ak")
        report("p5", 2, "ada", "meh", "q4", highlightOf: "ca")
        report("p6", 2, "dave", "ok", "q4")
        add("ca", ["name": "California"], ["quakes": ["q1", "q4"], "highlights": ["p3", "p1", "p5"]])
        add("ak", ["name": "Alaska"], ["quakes": ["q2", "q5"], "highlights": ["p4"]])
        if let failure { throw failure }
        self.snapshots = snapshots
        self.ids = ids
    }

    /// The evaluation source for the named object.
    package func source(_ name: String) -> SnapshotSource? {
        guard let id = ids[name], let snapshot = snapshots[id] else { return nil }
        let all = snapshots
        return SnapshotSource(snapshot: snapshot, model: model, resolve: { all[$0] })
    }
}
