/// A `LIKE` pattern prepared once: folded for `[c]`/`[d]` and split into characters (and into
/// bytes, for ASCII text), so each row only folds and splits its own text.
///
/// `matches(_:)` gives exactly `LikePattern.matches(fold(text), fold(pattern))`.
///
/// For example:
///
/// ```swift
/// let pattern = PreparedLike("cal*", options: .caseInsensitive)
/// pattern.matches("California")   // true
/// ```
struct PreparedLike {
    private let pattern: PreparedString
    private let characters: [Character]
    /// The folded pattern's bytes, when it is ASCII without a carriage return.
    private let bytes: [UInt8]?
    private let lowercasing: Bool

    init(_ pattern: String, options: StoreComparison.Options) {
        self.pattern = PreparedString(pattern, options: options)
        characters = Array(self.pattern.folded)
        let utf8 = Array(self.pattern.folded.utf8)
        bytes = utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? utf8 : nil
        lowercasing = options.contains(.caseInsensitive)
    }

    func matches(_ text: String) -> Bool {
        if let bytes, let answer = ASCIIText.like(text, bytes, lowercasing: lowercasing) { return answer }
        let folded = Array(pattern.fold(text))
        return folded.withUnsafeBufferPointer { text in
            characters.withUnsafeBufferPointer { pattern in
                LikePattern.matches(text, pattern, star: "*", question: "?", escape: "\\")
            }
        }
    }
}
