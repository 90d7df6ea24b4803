@testable import StoreCore
import XCTest

/// A save asks for its new objects' permanent IDs as runs of one entity and store: the runs must
/// give back one request per object, in the objects' order, store assignments included.
final class NewObjectRunTests: XCTestCase {
    func testRunsKeepEveryObjectInOrderWithItsStore() {
        let objects: [(entity: String, store: String?)] = [
            ("Post", nil), ("Post", nil), ("Post", "A"), ("Tag", "A"), ("Tag", "A"), ("Post", nil), ("Tag", nil), ("Tag", nil), ("Tag", nil),
        ]
        var runs: [NewObjectRun] = []
        for object in objects { NewObjectRun.append(entity: object.entity, store: object.store, to: &runs) }
        XCTAssertEqual(runs, [
            NewObjectRun(entity: "Post", store: nil, count: 2), NewObjectRun(entity: "Post", store: "A", count: 1),
            NewObjectRun(entity: "Tag", store: "A", count: 2), NewObjectRun(entity: "Post", store: nil, count: 1),
            NewObjectRun(entity: "Tag", store: nil, count: 3),
        ])
        let requests = NewObjectRun.requests(runs)
        XCTAssertEqual(requests.map(\.entity), objects.map(\.entity))
        XCTAssertEqual(requests.map(\.store), objects.map(\.store))
        XCTAssertEqual(NewObjectRun.entityNames(runs), objects.map(\.entity))
        XCTAssertEqual(NewObjectRun.objectCount(runs), objects.count)
    }

    func testRunsOfEntityNamesRepeatThemInOrder() {
        let names = ["Post", "Post", "Tag", "Post", "Tag", "Tag"]
        let runs = NewObjectRun.runs(of: names)
        XCTAssertEqual(runs.map(\.count), [2, 1, 1, 2])
        XCTAssertEqual(NewObjectRun.entityNames(runs), names)
        XCTAssertEqual(NewObjectRun.runs(of: []), [])
    }
}
