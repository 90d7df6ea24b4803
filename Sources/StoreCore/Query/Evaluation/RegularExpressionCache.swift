import Foundation

/// Compiled `MATCHES` patterns, so a fetch compiles each pattern once rather than once per object.
///
/// `@unchecked Sendable`: the dictionary is only touched under `lock`, and
/// `NSRegularExpression` is immutable after creation and documented as safe to use from several
/// threads at once.
package final class RegularExpressionCache: @unchecked Sendable {
    package init() {}

    private let lock = NSLock()
    private var compiled: [String: NSRegularExpression] = [:]

    /// Whether the whole of `text` matches `pattern` (ICU syntax), honouring `[c]` and `[d]`.
    package func matches(_ text: String, pattern: String, options: StoreComparison.Options) throws -> Bool {
        let diacritics: StoreComparison.Options = options.intersection(.diacriticInsensitive)
        let subject = diacritics.isEmpty ? text : ValueComparison.fold(text, diacritics)
        let source = diacritics.isEmpty ? pattern : ValueComparison.fold(pattern, diacritics)
        let regex = try expression(source, caseInsensitive: options.contains(.caseInsensitive))
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex.firstMatch(in: subject, options: [.anchored], range: range) != nil
    }

    private func expression(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        defer { lock.unlock() }
        if let cached = compiled[key] { return cached }
        do {
            // Compiled alone first, so a pattern like `a)(b` cannot escape the group below.
            if !pattern.isEmpty { _ = try NSRegularExpression(pattern: pattern) }
            let regex = try NSRegularExpression(pattern: "(?:\(pattern))\\z", options: caseInsensitive ? [.caseInsensitive] : [])
            if compiled.count > 256 { compiled.removeAll() }
            compiled[key] = regex
            return regex
        } catch {
            throw FetchError(.invalidRegularExpression, "'\(pattern)' is not a valid regular expression for MATCHES")
        }
    }
}
