import Foundation

/// A string constant prepared once for the string operators (`==`, `BEGINSWITH`, `ENDSWITH`,
/// `CONTAINS`, `LIKE`, ordering): folded for `[c]`/`[d]`, with its bytes kept for the ASCII
/// path of ``ASCIIText``.
///
/// Each test gives exactly what ``ValueComparison`` gives for `fold(text) op fold(constant)`.
///
/// For example:
///
/// ```swift
/// let japan = PreparedString("japan", options: .caseInsensitive)
/// japan.isContained(in: "80 km N of Japan")   // true, without folding the text
/// ```
struct PreparedString {
    /// The constant, folded.
    let folded: String
    let options: StoreComparison.Options
    /// The folded constant's bytes when ``ASCIIText`` may use them (ASCII, no NUL).
    private let needle: [UInt8]?
    /// Whether folding lowercases (`[c]`); `[d]` changes nothing in ASCII text.
    private let lowercasing: Bool
    private let folds: Bool

    init(_ constant: String, options: StoreComparison.Options) {
        self.options = options
        folds = options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive)
        folded = folds ? ValueComparison.fold(constant, options) : constant
        lowercasing = options.contains(.caseInsensitive)
        needle = ASCIIText.isPlainNeedle(folded) ? Array(folded.utf8) : nil
    }

    /// `text` folded as ``ValueComparison/fold(_:_:)`` folds it (ASCII text without Foundation).
    func fold(_ text: String) -> String {
        guard folds else { return text }
        return ASCIIText.lowercased(text, lowercasing: lowercasing) ?? ValueComparison.fold(text, options)
    }

    /// `text` folded for `options` as ``ValueComparison/fold(_:_:)`` folds it (ASCII text without Foundation).
    static func fold(_ text: String, _ options: StoreComparison.Options) -> String {
        guard options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive) else { return text }
        return ASCIIText.lowercased(text, lowercasing: options.contains(.caseInsensitive)) ?? ValueComparison.fold(text, options)
    }

    /// `fold(text) == folded`.
    func equals(_ text: String) -> Bool {
        if let needle, let answer = ASCIIText.equals(text, needle, lowercasing: lowercasing) { return answer }
        return fold(text) == folded
    }

    /// `fold(text).hasPrefix(folded)` (`BEGINSWITH`).
    func isPrefix(of text: String) -> Bool {
        if let needle, let answer = ASCIIText.hasPrefix(text, needle, lowercasing: lowercasing) { return answer }
        return fold(text).hasPrefix(folded)
    }

    /// `fold(text).hasSuffix(folded)` (`ENDSWITH`).
    func isSuffix(of text: String) -> Bool {
        if let needle, let answer = ASCIIText.hasSuffix(text, needle, lowercasing: lowercasing) { return answer }
        return fold(text).hasSuffix(folded)
    }

    /// `fold(text).contains(folded)` (`CONTAINS`), with Foundation's substring search.
    func isContained(in text: String) -> Bool {
        if let needle, let answer = ASCIIText.contains(text, needle, lowercasing: lowercasing) { return answer }
        return ValueComparison.substring(folded, isIn: fold(text))
    }

    /// The order of `fold(text)` and `folded`, as ``ValueComparison/order(_:_:_:)`` gives it for two strings.
    func order(of text: String) -> ComparisonResult {
        let folded = fold(text)
        return folded == self.folded ? .orderedSame : (folded < self.folded ? .orderedAscending : .orderedDescending)
    }
}
