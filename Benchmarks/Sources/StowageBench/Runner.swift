/// Runs workloads side by side: each round runs ours and every baseline back to back, with the
/// order rotating between rounds, so all sides see the same machine conditions.
struct Runner {
    /// A round in which one side takes longer than this is the last one.
    static let slowRunSeconds = 60.0
    /// No new round starts once a workload has used this much time.
    static let workloadBudgetSeconds = 180.0

    let rounds: Int

    struct Result {
        let workload: Workload
        let ours: [Double]
        /// Per baseline (in the workload's order), the time of each round.
        let baselines: [[Double]]
        /// Why fewer rounds than asked were run, if they were.
        let note: String?
    }

    func run(_ workload: Workload, progress: (String) -> Void) throws -> Result {
        // Side 0 is ours, side i > 0 is baseline i - 1.
        let sides: [(name: String, run: () throws -> Duration)] = [("ours", workload.ours)] + workload.baselines.map { ($0.name, $0.run) }
        var times: [[Double]] = Array(repeating: [], count: sides.count)
        var spent = 0.0
        var note: String?
        for round in 1...rounds {
            // Round 1 runs ours first, round 2 starts one later, and so on: with two sides
            // the order simply alternates.
            let start = (round - 1) % sides.count
            var roundTimes = Array(repeating: 0.0, count: sides.count)
            for step in 0..<sides.count {
                let side = (start + step) % sides.count
                roundTimes[side] = try sides[side].run().seconds
            }
            for (side, time) in roundTimes.enumerated() { times[side].append(time) }
            spent += roundTimes.reduce(0, +)
            progress("  round \(round): " + zip(sides, roundTimes).map { "\($0.name) \(Format.seconds($1))" }.joined(separator: ", "))
            if round < rounds, (roundTimes.max() ?? 0) > Self.slowRunSeconds || spent > Self.workloadBudgetSeconds {
                note = "capped at \(round) of \(rounds) rounds (slow)"
                break
            }
        }
        return Result(workload: workload, ours: times[0], baselines: Array(times.dropFirst()), note: note)
    }
}

enum Stats {
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
