import Foundation

/// Peak resident memory of one workload side, measured in a process of its own: the parent
/// re-runs this executable with `--child NAME [--side BASELINE]`; the child runs that side once
/// (setup included) and prints its high-water mark (`VmHWM`) from /proc/self/status.
enum PeakMemory {
    static let marker = "peak_rss_kb="

    /// In the child: this process's peak resident set size in KiB.
    static func ownPeakKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }

    /// In the parent: runs a child for one side of `workload` (the baseline named `side`, or ours
    /// when nil) and returns its peak RSS in MiB.
    static func measureInChild(workload: String, side: String?) -> Double? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--child", workload] + (side.map { ["--side", $0] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: output, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix(marker) }),
            let kib = Int(line.dropFirst(marker.count)), kib > 0
        else { return nil }
        return Double(kib) / 1024
    }
}
