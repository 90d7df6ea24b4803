import Foundation

/// One workload's figures, as printed and as written to the `--json` file.
struct ReportRow: Encodable {
    let name: String
    let medianSeconds: Double
    let minSeconds: Double
    let baseline: String
    let baselineMedianSeconds: Double
    let baselineMinSeconds: Double
    let ratio: Double
    let rounds: Int
    let peakRSSMiB: Double?
    let baselinePeakRSSMiB: Double?
    let note: String?

    enum CodingKeys: String, CodingKey {
        case name
        case medianSeconds = "median_s"
        case minSeconds = "min_s"
        case baseline
        case baselineMedianSeconds = "baseline_median_s"
        case ratio
        case peakRSSMiB = "peak_rss_mb"
    }

    /// The row comparing ours with baseline `index` of the workload.
    init(_ result: Runner.Result, baseline index: Int, peakRSS: Double?, baselinePeakRSS: Double?) {
        name = result.workload.rowName(baseline: index)
        baseline = result.workload.baselines[index].name
        medianSeconds = Stats.median(result.ours)
        minSeconds = result.ours.min() ?? 0
        baselineMedianSeconds = Stats.median(result.baselines[index])
        baselineMinSeconds = result.baselines[index].min() ?? 0
        ratio = baselineMedianSeconds > 0 ? medianSeconds / baselineMedianSeconds : 0
        rounds = result.ours.count
        peakRSSMiB = peakRSS
        baselinePeakRSSMiB = baselinePeakRSS
        note = index == 0 ? result.note : nil
    }

    /// Only the published keys; `peak_rss_mb` is written as null when it could not be measured.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(medianSeconds, forKey: .medianSeconds)
        try container.encode(minSeconds, forKey: .minSeconds)
        try container.encode(baseline, forKey: .baseline)
        try container.encode(baselineMedianSeconds, forKey: .baselineMedianSeconds)
        try container.encode(ratio, forKey: .ratio)
        try container.encode(peakRSSMiB.map { ($0 * 10).rounded() / 10 }, forKey: .peakRSSMiB)
    }
}

enum Report {
    static func table(_ rows: [ReportRow]) -> String {
        let header = ["workload", "median", "min", "baseline", "base median", "base min", "ratio", "rounds", "peak RSS", "base peak RSS"]
        let body = rows.map { row in
            [
                row.name, Format.seconds(row.medianSeconds), Format.seconds(row.minSeconds), row.baseline,
                Format.seconds(row.baselineMedianSeconds), Format.seconds(row.baselineMinSeconds),
                String(format: "%.2f×", row.ratio), "\(row.rounds)",
                Format.mebibytes(row.peakRSSMiB), Format.mebibytes(row.baselinePeakRSSMiB),
            ]
        }
        let widths = header.indices.map { column in ([header] + body).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
        }
        var lines = [line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
        lines += body.map(line)
        lines += rows.compactMap { row in row.note.map { "note: \(row.name): \($0)" } }
        return lines.joined(separator: "\n")
    }

    static func writeJSON(_ rows: [ReportRow], to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(rows).write(to: URL(fileURLWithPath: path))
    }
}

enum Format {
    static func seconds(_ value: Double) -> String {
        if value >= 1 { return String(format: "%.3f s", value) }
        if value >= 1e-3 { return String(format: "%.2f ms", value * 1e3) }
        return String(format: "%.1f µs", value * 1e6)
    }

    static func mebibytes(_ value: Double?) -> String {
        value.map { String(format: "%.1f MB", $0) } ?? "n/a"
    }
}
