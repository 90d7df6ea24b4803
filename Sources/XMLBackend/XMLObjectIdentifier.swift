/// The `id` of an object and the `idrefs` naming it: `z<n>`, where `n` is the object's primary key.
///
/// Ids of another form (hand-edited files: `"ABF"`) are read too: such objects get fresh keys
/// above every other key, and references to them are resolved by the id's text.
///
/// For example:
///
/// ```swift
/// XMLObjectIdentifier.primaryKey(inID: bytes)   // 104 for "z104", nil for "ABF" or "z0"
/// XMLObjectIdentifier.text(forKey: 104)          // "z104"
/// ```
enum XMLObjectIdentifier {
    /// The key of a `z<n>` id: `n` in decimal without leading zeros, from 1 to `Int64.max`.
    static func primaryKey(inID bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count >= 2, bytes.count <= 20, bytes[0] == UInt8(ascii: "z"), bytes[1] != UInt8(ascii: "0") else { return nil }
        var key: Int64 = 0
        for byte in bytes.dropFirst() {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = key.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            key = sum
        }
        return key
    }

    static func text(forKey key: Int64) -> String { "z\(key)" }
}
