/// Runs workloads side by side: each round runs ours and the baseline back to back, with the
/// order alternating between rounds, so both see the same machine conditions.
struct Runner {
    /// A round in which one side takes longer than this is the last one.
    static let slowRunSeconds = 60.0
    /// No new round starts once a workload has used this much time.
    static let workloadBudgetSeconds = 180.0

    let rounds: Int

    struct Result {
        let workload: Workload
        let ours: [Double]
        let baseline: [Double]
        /// Why fewer rounds than asked were run, if they were.
        let note: String?
    }

    func run(_ workload: Workload, progress: (String) -> Void) throws -> Result {
        var ours: [Double] = []
        var baseline: [Double] = []
        var spent = 0.0
        var note: String?
        for round in 1...rounds {
            let oursFirst = round % 2 == 1
            let first = try (oursFirst ? workload.ours : workload.baseline)().seconds
            let second = try (oursFirst ? workload.baseline : workload.ours)().seconds
            let (o, b) = oursFirst ? (first, second) : (second, first)
            ours.append(o)
            baseline.append(b)
            spent += o + b
            progress("  round \(round): ours \(Format.seconds(o)), \(workload.baselineName) \(Format.seconds(b))")
            if round < rounds, max(o, b) > Self.slowRunSeconds || spent > Self.workloadBudgetSeconds {
                note = "capped at \(round) of \(rounds) rounds (slow)"
                break
            }
        }
        return Result(workload: workload, ours: ours, baseline: baseline, note: note)
    }
}

enum Stats {
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
