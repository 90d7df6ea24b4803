/// Byte-level string tests for ASCII text, which give the same answers as the Foundation and
/// standard-library operations ``ValueComparison`` uses, without folding or bridging.
///
/// Every function returns `nil` when it cannot answer exactly that way (text that is not ASCII
/// or not contiguous UTF-8), and the caller falls back to the general path. Needles are given
/// already folded (lowercase when `lowercasing`) and must be ASCII without NUL (checked by
/// ``isPlainNeedle(_:)`` once, when a predicate is compiled).
///
/// Why the answers agree: for ASCII, `[c]` folding is lowercasing A–Z and `[d]` folding changes
/// nothing; a byte match is a character match, except that `"\r\n"` is one character for the
/// standard library's `hasPrefix`, `hasSuffix` and `==` (handled below); Foundation's substring
/// search treats a NUL in the needle specially, so such needles never take this path.
enum ASCIIText {
    /// Whether `needle` may be used with the functions below: ASCII, and no NUL.
    static func isPlainNeedle(_ needle: String) -> Bool {
        needle.utf8.allSatisfy { $0 != 0 && $0 < 0x80 }
    }

    /// `text` (lowercased when `lowercasing`) equals `needle`; `nil` when `text` is not ASCII.
    static func equals(_ text: String, _ needle: [UInt8], lowercasing: Bool) -> Bool? {
        withASCII(text) { bytes in
            guard bytes.count == needle.count else { return false }
            for i in 0..<bytes.count where byte(bytes[i], lowercasing) != needle[i] { return false }
            return true
        }
    }

    /// `text` (lowercased when `lowercasing`) begins with `needle`, as `String.hasPrefix` says.
    static func hasPrefix(_ text: String, _ needle: [UInt8], lowercasing: Bool) -> Bool? {
        withASCII(text) { bytes in
            guard bytes.count >= needle.count else { return false }
            for i in 0..<needle.count where byte(bytes[i], lowercasing) != needle[i] { return false }
            // A prefix ending inside "\r\n" splits a character.
            if let last = needle.last, last == 0x0D, bytes.count > needle.count, bytes[needle.count] == 0x0A { return false }
            return true
        }
    }

    /// `text` (lowercased when `lowercasing`) ends with `needle`, as `String.hasSuffix` says.
    static func hasSuffix(_ text: String, _ needle: [UInt8], lowercasing: Bool) -> Bool? {
        withASCII(text) { bytes in
            guard bytes.count >= needle.count else { return false }
            let start = bytes.count - needle.count
            for i in 0..<needle.count where byte(bytes[start + i], lowercasing) != needle[i] { return false }
            // A suffix starting inside "\r\n" splits a character.
            if let first = needle.first, first == 0x0A, start > 0, bytes[start - 1] == 0x0D { return false }
            return true
        }
    }

    /// `text` (lowercased when `lowercasing`) contains `needle`, as Foundation's
    /// `StringProtocol.contains(_:)` says (an empty needle is never contained).
    static func contains(_ text: String, _ needle: [UInt8], lowercasing: Bool) -> Bool? {
        withASCII(text) { bytes in
            guard let first = needle.first, bytes.count >= needle.count else { return false }
            var start = 0
            let lastStart = bytes.count - needle.count
            outer: while start <= lastStart {
                if byte(bytes[start], lowercasing) == first {
                    for i in 1..<needle.count where byte(bytes[start + i], lowercasing) != needle[i] {
                        start += 1
                        continue outer
                    }
                    return true
                }
                start += 1
            }
            return false
        }
    }

    /// `LIKE` over ASCII text without a carriage return (so that every byte is one character),
    /// with a pattern of the same kind; `nil` when `text` is not such text.
    static func like(_ text: String, _ pattern: [UInt8], lowercasing: Bool) -> Bool? {
        withASCII(text) { bytes in
            guard !bytes.contains(0x0D) else { return nil }
            return pattern.withUnsafeBufferPointer { pattern in
                LikePattern.matches(bytes, pattern, star: 0x2A, question: 0x3F, escape: 0x5C) { byte($0, lowercasing) }
            }
        }
    }

    /// `text` as `[c]`/`[d]` folding leaves ASCII text: lowercased when `lowercasing`, else
    /// unchanged; `nil` when `text` is not ASCII.
    static func lowercased(_ text: String, lowercasing: Bool) -> String? {
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard isASCII(bytes) else { return nil }
            guard lowercasing, bytes.contains(where: { $0 &- 0x41 < 26 }) else { return text }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for i in 0..<bytes.count { buffer[i] = byte(bytes[i], true) }
                return bytes.count
            }
        }
        return answer ?? nil
    }

    @inline(__always)
    private static func byte(_ b: UInt8, _ lowercasing: Bool) -> UInt8 {
        lowercasing && b &- 0x41 < 26 ? b | 0x20 : b
    }

    /// Runs `body` over the UTF-8 bytes of `text` when they are contiguous and all ASCII.
    @inline(__always)
    private static func withASCII(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool?) -> Bool? {
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard isASCII(bytes) else { return nil }
            return body(bytes)
        }
        return answer ?? nil
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        let count = bytes.count
        while i + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < count {
            if base[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }
}
