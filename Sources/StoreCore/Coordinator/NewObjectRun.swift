/// New objects that need permanent IDs: `count` objects of one entity in a row, each from the
/// store assigned to them (`nil`: the store that holds the entity). A save's new objects are
/// usually of a few entities, inserted one entity at a time, so a million new objects are a few
/// runs rather than a million requests.
///
/// For example (inside a save):
///
/// ```swift
/// var runs: [NewObjectRun] = []
/// NewObjectRun.append(entity: "Post", store: nil, to: &runs)   // a run of 1
/// NewObjectRun.append(entity: "Post", store: nil, to: &runs)   // the same run, of 2
/// ```
package struct NewObjectRun: Equatable, Sendable {
    package let entity: String
    package let store: String?
    package var count: Int

    /// Adds one object to the last run when it is of the same entity and store, else starts a run.
    package static func append(entity: String, store: String?, to runs: inout [NewObjectRun]) {
        if let last = runs.last, last.entity == entity, last.store == store {
            runs[runs.count - 1].count += 1
        } else {
            runs.append(NewObjectRun(entity: entity, store: store, count: 1))
        }
    }

    /// The runs of `entityNames` (no store assigned), in order.
    package static func runs(of entityNames: [String]) -> [NewObjectRun] {
        var runs: [NewObjectRun] = []
        for name in entityNames { append(entity: name, store: nil, to: &runs) }
        return runs
    }

    /// The runs as one request per object, in order.
    static func requests(_ runs: [NewObjectRun]) -> [(entity: String, store: String?)] {
        var requests: [(entity: String, store: String?)] = []
        requests.reserveCapacity(objectCount(runs))
        for run in runs { requests.append(contentsOf: repeatElement((entity: run.entity, store: run.store), count: run.count)) }
        return requests
    }

    /// The entity name of each object, in order.
    package static func entityNames(_ runs: [NewObjectRun]) -> [String] {
        var names: [String] = []
        names.reserveCapacity(objectCount(runs))
        for run in runs { names.append(contentsOf: repeatElement(run.entity, count: run.count)) }
        return names
    }

    package static func objectCount(_ runs: [NewObjectRun]) -> Int { runs.reduce(0) { $0 + $1.count } }
}
