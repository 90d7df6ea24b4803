import Foundation
import StoreCore

/// A small model for batch requests and persistent history: quakes with a unique, preserved
/// code, in regions that cascade to them and reports that deny deleting a reviewed quake.
///
/// For example:
///
/// ```swift
/// let stack = try BackendStack(.sqlite, model: QuakeModel.make(), options: [.persistentHistoryTracking: true])
/// ```
public enum QuakeModel {
    /// A fresh model instance: `Quake` (unique `code`, kept with `depth` in history tombstones;
    /// `magnitude` within 0…10), `Region` (cascading to its quakes) and `Report` (denying the
    /// deletion of its quake).
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Quake", uniquenessConstraints: [["code"]]) {
                .attribute("code", .string, optional: false, preservesValueInHistoryOnDeletion: true)
                .attribute("magnitude", .double, optional: false, defaultValue: 0.0, rules: .range(0.0...10.0))
                .attribute("place", .string)
                .attribute("time", .date)
                .attribute("depth", .integer32, preservesValueInHistoryOnDeletion: true)
                .toOne("region", destination: "Region", inverse: "quakes")
                .toMany("reports", destination: "Report", inverse: "quake", deleteRule: .deny)
            }
            EntityDescription("Region") {
                .attribute("name", .string)
                .toMany("quakes", destination: "Quake", inverse: "region", deleteRule: .cascade)
            }
            EntityDescription("Report") {
                .attribute("text", .string)
                .toOne("quake", destination: "Quake", inverse: "reports")
            }
        }
    }

    /// `count` quake rows: codes `q1`…, magnitudes `i % 10`, places alternating "north"/"south".
    public static func rows(_ count: Int) -> [[String: Any]] {
        guard count > 0 else { return [] }
        return (1...count).map { i -> [String: Any] in
            let place = i % 2 == 0 ? "north" : "south"
            let time = Date(timeIntervalSinceReferenceDate: Double(i))
            return ["code": "q\(i)", "magnitude": Double(i % 10), "place": place, "time": time]
        }
    }
}
