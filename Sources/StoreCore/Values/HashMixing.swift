/// Turns one word into a well-spread hash without a `Hasher`, for values that already hold a
/// word identifying them (object IDs, objects by identity) and go into large sets.
///
/// `Set` and `Dictionary` use the low bits of a hash to pick a bucket, so every input bit must
/// reach them: the word, offset by the table's seed, goes through MurmurHash3's 64-bit
/// finalizer (two multiply–xor-shift rounds), which spreads each bit over the whole word.
///
/// For example:
///
/// ```swift
/// public func _rawHashValue(seed: Int) -> Int { HashMixing.mix(word, seed: seed) }
/// ```
enum HashMixing {
    static func mix(_ word: Int, seed: Int) -> Int {
        var x = UInt64(truncatingIfNeeded: word) ^ UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return Int(truncatingIfNeeded: x)
    }
}
