import Foundation

/// Compiled `MATCHES` patterns, so a fetch compiles each pattern once rather than once per object.
///
/// `@unchecked Sendable`: the dictionary is only touched under `lock`, and
/// `NSRegularExpression` is immutable after creation and documented as safe to use from several
/// threads at once.
package final class RegularExpressionCache: @unchecked Sendable {
    package init() {}

    private let lock = NSLock()
    private var cache: [String: NSRegularExpression] = [:]

    /// Whether the whole of `text` matches `pattern` (ICU syntax), honouring `[c]` and `[d]`.
    package func matches(_ text: String, pattern: String, options: StoreComparison.Options) throws -> Bool {
        try compiled(pattern, options: options).matches(text)
    }

    /// `pattern` compiled for `options`, to match many texts.
    ///
    /// - Throws: ``FetchError`` (code `invalidRegularExpression`) when the pattern does not compile.
    func compiled(_ pattern: String, options: StoreComparison.Options) throws -> CompiledPattern {
        let diacritics: StoreComparison.Options = options.intersection(.diacriticInsensitive)
        let source = diacritics.isEmpty ? pattern : ValueComparison.fold(pattern, diacritics)
        return CompiledPattern(regex: try expression(source, caseInsensitive: options.contains(.caseInsensitive)), diacritics: diacritics)
    }

    /// A `MATCHES` pattern ready to match texts: the text is folded for `[d]` as the pattern was.
    struct CompiledPattern {
        let regex: NSRegularExpression
        let diacritics: StoreComparison.Options

        func matches(_ text: String) -> Bool {
            let subject = diacritics.isEmpty ? text : ValueComparison.fold(text, diacritics)
            let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
            return regex.firstMatch(in: subject, options: [.anchored], range: range) != nil
        }
    }

    private func expression(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[key] { return cached }
        do {
            // Compiled alone first, so a pattern like `a)(b` cannot escape the group below.
            if !pattern.isEmpty { _ = try NSRegularExpression(pattern: pattern) }
            let regex = try NSRegularExpression(pattern: "(?:\(pattern))\\z", options: caseInsensitive ? [.caseInsensitive] : [])
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
            return regex
        } catch {
            throw FetchError(.invalidRegularExpression, "'\(pattern)' is not a valid regular expression for MATCHES")
        }
    }
}
