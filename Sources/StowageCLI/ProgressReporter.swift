import Foundation
import Stowage
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shows how far a copy or a migration has got: a bar redrawn in place on a terminal, plain lines (one per
/// tenth) when the output goes to a file or a pipe.
///
/// For example:
///
/// ```swift
/// let progress = ProgressReporter(label: "Copying")
/// progress.report(StoreCopyProgress(...))   // [██████░░░░░░]  50%  5,000 of 10,000 objects
/// let copied = progress.finish()
/// ```
final class ProgressReporter: Sendable {
    private let label: String
    private let isTerminal = isatty(STDOUT_FILENO) == 1
    /// The last tenth printed (plain output) and the objects last reported.
    private let state = Mutex((lastTenth: -1, completed: 0))

    init(label: String) { self.label = label }

    func report(_ progress: StoreCopyProgress) {
        state.withLock { $0.completed = progress.completedObjects }
        report(fraction: progress.fractionCompleted, detail: "\(progress.completedObjects.formatted()) of \(progress.totalObjects.formatted()) objects")
    }

    /// Draws the bar at `fraction` (0…1) with `detail` after it.
    func report(fraction: Double, detail: String = "") {
        if isTerminal {
            let width = 30
            let filled = max(0, min(width, Int(fraction * Double(width))))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let percent = String(format: "%3d%%", Int(fraction * 100))
            FileHandle.standardOutput.write(Data("\r\(label) [\(bar)] \(percent)  \(detail)".utf8))
        } else {
            let tenth = Int(fraction * 10)
            let isNew = state.withLock { state in
                defer { state.lastTenth = max(state.lastTenth, tenth) }
                return tenth > state.lastTenth
            }
            if isNew { print("\(label): \(detail.isEmpty ? "\(Int(fraction * 100))%" : detail)") }
        }
    }

    /// Ends the bar's line; returns the number of objects last reported.
    func finish() -> Int {
        if isTerminal { FileHandle.standardOutput.write(Data("\n".utf8)) }
        return state.withLock { $0.completed }
    }
}
