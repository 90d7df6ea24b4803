import Foundation

/// stowage-bench: Stowage next to its baselines, side by side in one run.
/// See docs/benchmarks.md for the figures and the command that made them.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("stowage-bench: \(message)\n".utf8))
    exit(1)
}

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { FileHandle.standardError.write(Data("stowage-bench: \(message)\n".utf8)) }
    print(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

do {
    let workloads = try Catalog.all()

    if let name = options.child {
        // A child run for peak memory: one side of one workload, once, setup included.
        guard let workload = workloads.first(where: { $0.name == name }) else { fail("no workload named \(name)") }
        _ = try (options.childRunsBaseline ? workload.baseline : workload.ours)()
        print("\(PeakMemory.marker)\(PeakMemory.ownPeakKiB() ?? -1)")
        exit(0)
    }

    let selected = workloads.filter { workload in options.filter.map { workload.name.contains($0) } ?? true }
    if options.list {
        selected.forEach { print($0.name) }
        exit(0)
    }
    guard !selected.isEmpty else { fail("no workload matches --filter \(options.filter ?? "")") }

    let runner = Runner(rounds: options.rounds)
    var rows: [ReportRow] = []
    for workload in selected {
        print("\(workload.name) vs \(workload.baselineName)")
        let result = try runner.run(workload) { print($0) }
        let peak = options.skipMemory ? nil : PeakMemory.measureInChild(workload: workload.name, baseline: false)
        let basePeak = options.skipMemory ? nil : PeakMemory.measureInChild(workload: workload.name, baseline: true)
        rows.append(ReportRow(result, peakRSS: peak, baselinePeakRSS: basePeak))
    }
    print()
    print(Report.table(rows))
    if let path = options.jsonPath {
        try Report.writeJSON(rows, to: path)
        print("wrote \(path)")
    }
} catch {
    fail("\(error)")
}
