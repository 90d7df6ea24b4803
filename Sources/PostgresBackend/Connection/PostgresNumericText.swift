#if Postgres
import PostgresNIO

/// The exact text of a `NUMERIC` in PostgreSQL's binary format: its digits as the server would
/// print them (`-12.3400`), or `NaN`, `Infinity`, `-Infinity`.
///
/// postgres-nio's own decoding reads `NaN` and the infinities as 0; this reads what is there,
/// so that the store can refuse what a `Decimal` cannot hold.
///
/// For example, the binary form of `-1234.5` (two base-10000 groups, weight 0, scale 1) reads
/// as `"-1234.5"`:
///
/// ```swift
/// let text = PostgresNumericText.text(of: cell.bytes!)   // "-1234.5"
/// ```
enum PostgresNumericText {
    /// The text of a binary `NUMERIC`; `nil` when the bytes are not one.
    static func text(of bytes: ByteBuffer) -> String? {
        var bytes = bytes
        guard let count = bytes.readInteger(as: Int16.self), let weight = bytes.readInteger(as: Int16.self),
            let sign = bytes.readInteger(as: UInt16.self), let scale = bytes.readInteger(as: Int16.self), count >= 0, scale >= 0
        else { return nil }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        case 0x0000, 0x4000: break
        default: return nil
        }
        // Base-10000 groups; group k stands for group × 10000^(weight − k).
        var groups: [Int16] = []
        groups.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let group = bytes.readInteger(as: Int16.self), (0..<10_000).contains(group) else { return nil }
            groups.append(group)
        }
        func group(_ k: Int) -> Int16 { groups.indices.contains(k) ? groups[k] : 0 }
        func padded(_ group: Int16) -> String {
            let digits = String(group)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        var integer = ""
        if weight >= 0 {
            for k in 0...Int(weight) { integer += k == 0 ? String(group(k)) : padded(group(k)) }
        } else {
            integer = "0"
        }
        var fraction = ""
        var k = Int(weight) + 1
        while fraction.count < Int(scale) {
            fraction += padded(group(k))
            k += 1
        }
        fraction = String(fraction.prefix(Int(scale)))
        return (sign == 0x4000 ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
    }
}
#endif
