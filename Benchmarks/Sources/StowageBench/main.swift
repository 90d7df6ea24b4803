import Foundation

/// stowage-bench: Stowage next to its baselines, side by side in one run.
/// See docs/benchmarks.md for the figures and the command that made them.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("stowage-bench: \(message)\n".utf8))
    Scratch.removeAll()
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
    if let stage = options.objectBytesStage {
        try ObjectBytes.runStage(stage)
        Scratch.removeAll()
        exit(0)
    }
    if options.objectBytes {
        try ObjectBytes.report()
        exit(0)
    }
    let workloads = try Catalog.all()

    if let name = options.child {
        // A child run for peak memory: one side of one workload, once, setup included.
        guard let workload = workloads.first(where: { $0.name == name }) else { fail("no workload named \(name)") }
        let childTime: Duration
        if let side = options.childSide {
            guard let baseline = workload.baselines.first(where: { $0.name == side }) else { fail("\(name) has no baseline \(side)") }
            childTime = try baseline.run()
        } else {
            childTime = try workload.ours()
        }
        print("timed part: \(childTime)")
        print("\(PeakMemory.marker)\(PeakMemory.ownPeakKiB() ?? -1)")
        Scratch.removeAll()
        exit(0)
    }

    let selected = workloads.filter { workload in
        options.filter.map { filter in workload.rowNames.contains { $0.contains(filter) } } ?? true
    }
    if options.list {
        selected.flatMap(\.rowNames).forEach { print($0) }
        exit(0)
    }
    guard !selected.isEmpty else { fail("no workload matches --filter \(options.filter ?? "")") }

    let runner = Runner(rounds: options.rounds)
    var rows: [ReportRow] = []
    for workload in selected {
        print("\(workload.name) vs \(workload.baselines.map(\.name).joined(separator: ", "))")
        let result = try runner.run(workload) { print($0) }
        let peak = options.skipMemory ? nil : PeakMemory.measureInChild(workload: workload.name, side: nil)
        for (index, baseline) in workload.baselines.enumerated() {
            let basePeak = options.skipMemory ? nil : PeakMemory.measureInChild(workload: workload.name, side: baseline.name)
            rows.append(ReportRow(result, baseline: index, peakRSS: peak, baselinePeakRSS: basePeak))
        }
    }
    print()
    print(Report.table(rows))
    if let path = options.jsonPath {
        try Report.writeJSON(rows, to: path)
        print("wrote \(path)")
    }
    Scratch.removeAll()
} catch {
    fail("\(error)")
}
