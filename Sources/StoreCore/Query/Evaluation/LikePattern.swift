/// `LIKE` matching: `*` matches any run of characters (including none), `?` exactly one, and a
/// backslash makes the next character literal. The whole string must match.
///
/// Complexity: O(n·m) in the worst case, linear for patterns with at most one `*`.
package enum LikePattern {
    package static func matches(_ text: String, _ pattern: String) -> Bool {
        matches(Array(text), Array(pattern), star: "*", question: "?", escape: "\\")
    }

    /// The same matching over any elements: characters, or the bytes of ASCII text (see
    /// ``PreparedString``), with `normalize` applied to each text element first.
    @inline(__always)
    static func matches<Element: Equatable>(
        _ t: UnsafeBufferPointer<Element>, _ p: UnsafeBufferPointer<Element>,
        star: Element, question: Element, escape: Element, normalize: (Element) -> Element = { $0 }
    ) -> Bool {
        var ti = 0, pi = 0
        var starPattern = -1, starText = 0
        while ti < t.count {
            if pi < p.count {
                let c = p[pi]
                if c == star {
                    starPattern = pi
                    starText = ti
                    pi += 1
                    continue
                }
                if c == escape, pi + 1 < p.count {
                    if p[pi + 1] == normalize(t[ti]) {
                        pi += 2
                        ti += 1
                        continue
                    }
                } else if c == question || c == normalize(t[ti]) {
                    pi += 1
                    ti += 1
                    continue
                }
            }
            guard starPattern >= 0 else { return false }
            pi = starPattern + 1
            starText += 1
            ti = starText
        }
        while pi < p.count, p[pi] == star { pi += 1 }
        return pi == p.count
    }

    private static func matches(_ t: [Character], _ p: [Character], star: Character, question: Character, escape: Character) -> Bool {
        t.withUnsafeBufferPointer { text in
            p.withUnsafeBufferPointer { pattern in
                matches(text, pattern, star: star, question: question, escape: escape)
            }
        }
    }
}
