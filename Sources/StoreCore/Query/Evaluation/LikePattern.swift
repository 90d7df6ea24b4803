/// `LIKE` matching: `*` matches any run of characters (including none), `?` exactly one, and a
/// backslash makes the next character literal. The whole string must match.
///
/// Complexity: O(n·m) in the worst case, linear for patterns with at most one `*`.
package enum LikePattern {
    package static func matches(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text), p = Array(pattern)
        var ti = 0, pi = 0
        var starPattern = -1, starText = 0
        while ti < t.count {
            if pi < p.count {
                let c = p[pi]
                if c == "*" {
                    starPattern = pi
                    starText = ti
                    pi += 1
                    continue
                }
                if c == "\\", pi + 1 < p.count {
                    if p[pi + 1] == t[ti] {
                        pi += 2
                        ti += 1
                        continue
                    }
                } else if c == "?" || c == t[ti] {
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
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
