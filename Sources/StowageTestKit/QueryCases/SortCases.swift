import Foundation
import StoreCore

/// The shared table of ordering cases: sort descriptors over ``QueryFixture``'s quakes, some of
/// whose values are nil, and the order every store must return them in — nil first ascending and
/// last descending, as Core Data's SQLite store orders it — for object fetches and for grouped
/// dictionary results.
///
/// For example:
///
/// ```swift
/// for sortCase in SortCases.all { print(sortCase) }   // "line 31: magnitude ascending → q5 q4 q2 q3 q1"
/// ```
public struct SortCase: Sendable, CustomStringConvertible {
    /// The request's sort descriptors.
    public let sortDescriptors: [StoreSortDescriptor]
    /// For a dictionary case, the key the results are fetched and grouped by.
    public let groupBy: String?
    /// The quakes in order, or for a grouped case the group keys in order (`nil` for the nil group).
    public let expected: [String?]
    /// The line of the table the case is written on.
    public let line: UInt

    public var description: String {
        let sorts = sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
        let grouped = groupBy.map { " grouped by \($0)" } ?? ""
        return "line \(line): \(sorts)\(grouped) → \(expected.map { $0 ?? "nil" }.joined(separator: " "))"
    }
}

/// The ordering cases (``SortCase``) every store runs through ``QueryCaseSuite``.
public enum SortCases {
    /// Every ordering case.
    public static let all: [SortCase] = [
        objects([.ascending("magnitude")], "q5 q4 q2 q3 q1"),
        objects([.descending("magnitude")], "q1 q3 q2 q4 q5"),
        objects([.ascending("time")], "q4 q5 q1 q2 q3"),
        objects([.descending("time")], "q3 q2 q1 q5 q4"),
        objects([.ascending("alert"), .ascending("time")], "q5 q2 q4 q1 q3"),
        objects([.descending("alert"), .descending("time")], "q3 q1 q4 q2 q5"),
        objects([.ascending("region.name"), .descending("magnitude")], "q3 q2 q5 q1 q4"),
        objects([.descending("region.name"), .ascending("magnitude")], "q4 q1 q5 q2 q3"),
        groups("alert", [.ascending("alert")], [nil, "green", "red", "yellow"]),
        groups("alert", [.descending("alert")], ["yellow", "red", "green", nil]),
        groups("code", [.ascending("code")], [nil, "", "ak0191", "ci0001", "ci38457511"]),
    ]

    static func objects(_ sorts: [StoreSortDescriptor], _ names: String, line: UInt = #line) -> SortCase {
        SortCase(sortDescriptors: sorts, groupBy: nil, expected: names.split(separator: " ").map(String.init), line: line)
    }

    static func groups(_ key: String, _ sorts: [StoreSortDescriptor], _ keys: [String?], line: UInt = #line) -> SortCase {
        SortCase(sortDescriptors: sorts, groupBy: key, expected: keys, line: line)
    }

    /// The request a case runs.
    public static func request(for sortCase: SortCase) -> StoreFetchRequest {
        guard let key = sortCase.groupBy else {
            var request = StoreFetchRequest(entityName: "Quake", resultType: .managedObjectID)
            request.sortDescriptors = sortCase.sortDescriptors
            return request
        }
        var request = StoreFetchRequest(entityName: "Quake", resultType: .dictionary)
        request.propertiesToFetch = [.property(key)]
        request.propertiesToGroupBy = [.property(key)]
        request.sortDescriptors = sortCase.sortDescriptors
        return request
    }
}
