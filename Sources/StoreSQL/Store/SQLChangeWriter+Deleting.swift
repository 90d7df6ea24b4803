import StoreCore

/// A save's deleted rows, a run of them per statement: consecutive deleted objects of one entity,
/// read at one version, whose keys follow each other (as a fetch in key order and a delete of each
/// object leave them) go with one `DELETE … WHERE Z_OPT = ? AND Z_PK BETWEEN ? AND ?`
/// (``SQLTableWritePlan/rangeDeleteSQL``) instead of one statement each; the other rows go one by
/// one (``SQLChangeWriter/delete(_:)``). Optimistic locking is kept, and conflicts are still named
/// exactly.
///
/// Rows are deleted in change-set order, from the first run on inside one savepoint. A run whose
/// statement deletes fewer rows than it holds met a row changed or deleted since it was read, so
/// the save fails in any case (nothing else of a save deletes or versions an entity's row); which
/// rows conflict cannot be told from the count (a row missing now may be one the statement
/// deleted, or one deleted elsewhere before). The rows are then rolled back to the savepoint and
/// deleted again one by one, which notes exactly the rows that conflict, each with the store's
/// version and values (the conflicts noted inside the savepoint the first time are dropped).
///
/// A run's rows get what the row-by-row path gives them: history records with tombstones, read
/// before the rows go (one statement per run, the records in key order as the row-by-row path
/// makes them), and the clean-up of their to-many relationships after. Entities whose binary
/// values may live in external files go row by row (their files are noted as each row goes).
///
/// For example, 100,000 objects fetched and each deleted, then saved, are one `DELETE` (and a
/// savepoint), not 100,000.
extension SQLChangeWriter {
    /// Shorter runs go row by row (a statement of their own and the savepoint would cost more).
    static var fewestRowsPerRun: Int { 8 }
    private static var savepoint: String { "stowage_deleted_rows" }

    /// Deleted rows `rows` (positions in the change set) of one entity, read at `version`, whose
    /// keys are `first`, `first + 1`, ….
    private struct DeletedRun {
        let plan: SQLTableWritePlan
        let version: Int64
        let first: Int64
        let rows: Range<Int>

        var last: Int64 { first + Int64(rows.count - 1) }
    }

    /// Deletes the rows of `snapshots` (with their history records and to-many clean-up), noting
    /// a merge conflict for each row changed or deleted since it was read.
    mutating func deleteRows(_ snapshots: [StoreSnapshot]) throws {
        let runs = snapshots.count < Self.fewestRowsPerRun ? [] : try keyRuns(of: snapshots)
        guard let start = runs.first?.rows.lowerBound else {
            for row in snapshots.indices { try delete(snapshots[row]) }
            return
        }
        for row in 0..<start { try delete(snapshots[row]) }
        // From the first run on, in change-set order (history records keep it).
        let conflictsBefore = conflicts.count
        try connection.run("SAVEPOINT \(Self.savepoint)", [])
        if try deleteRuns(runs, from: start, of: snapshots) {
            try connection.run("RELEASE SAVEPOINT \(Self.savepoint)", [])
            return
        }
        try connection.run("ROLLBACK TO SAVEPOINT \(Self.savepoint)", [])
        try connection.run("RELEASE SAVEPOINT \(Self.savepoint)", [])
        conflicts.removeSubrange(conflictsBefore...)
        for row in start..<snapshots.count { try delete(snapshots[row]) }
    }

    /// The runs of at least ``fewestRowsPerRun`` rows, in change-set order.
    private mutating func keyRuns(of snapshots: [StoreSnapshot]) throws -> [DeletedRun] {
        var runs: [DeletedRun] = []
        var start = 0
        var plan = try plan(for: snapshots[0].entity)
        var version = snapshots[0].version
        var first = try Self.primaryKey(snapshots[0].objectID)
        var previous = first
        var row = 1
        while true {
            var rowPlan = plan, key = previous, rowVersion = version
            if row < snapshots.count {
                // The plan is looked up only where the entity changes.
                if snapshots[row].entity !== plan.entity { rowPlan = try self.plan(for: snapshots[row].entity) }
                key = try Self.primaryKey(snapshots[row].objectID)
                rowVersion = snapshots[row].version
                if rowPlan === plan, rowVersion == version, key == previous &+ 1 {
                    previous = key
                    row += 1
                    continue
                }
            }
            // The run ends before `row`.
            if row - start >= Self.fewestRowsPerRun, plan.externalColumns.isEmpty || willReplaceExternal == nil {
                runs.append(DeletedRun(plan: plan, version: version, first: first, rows: start..<row))
            }
            guard row < snapshots.count else { return runs }
            start = row
            plan = rowPlan
            version = rowVersion
            first = key
            previous = key
            row += 1
        }
    }

    /// Deletes the rows from `start` on, each run with one statement and the others one by one;
    /// false (at once) when a run's statement deleted fewer rows than the run holds.
    private mutating func deleteRuns(_ runs: [DeletedRun], from start: Int, of snapshots: [StoreSnapshot]) throws -> Bool {
        var next = start
        for run in runs {
            for row in next..<run.rows.lowerBound { try delete(snapshots[row]) }
            next = run.rows.upperBound
            let plan = run.plan
            // Before the rows go: their tombstones are read from them.
            if recordsHistory { try history?.recordDeletions(from: plan.table, version: run.version, keys: run.first, through: run.last) }
            let deleted = try connection.run(plan.rangeDeleteSQL, [.integer(run.version), .integer(run.first), .integer(run.last)])
            guard deleted == run.rows.count else { return false }
            guard !plan.toManyCleanups.isEmpty else { continue }
            for key in run.first...run.last { try clearToMany(of: key, plan: plan) }
        }
        for row in next..<snapshots.count { try delete(snapshots[row]) }
        return true
    }
}
