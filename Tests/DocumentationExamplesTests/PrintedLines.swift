import Foundation

/// What the examples print, line by line, so that the tests can check the values the articles'
/// comments say they print (`print(total)   // 465`) without changing the examples.
final class PrintedLines: @unchecked Sendable {
    // @unchecked: every access goes through the lock.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    /// The lines printed since the last call; they are forgotten.
    func take() -> [String] {
        lock.withLock {
            defer { lines = [] }
            return lines
        }
    }
}

/// The lines printed by this target's code.
let printed = PrintedLines()

/// Shadows the standard library's `print` in this target: prints as usual, and records the line.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    printed.append(line)
    Swift.print(line, terminator: terminator)
}
