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
    /// How many neighbouring words ``mixKeepingNeighbors(_:seed:)`` keeps together (a power of two).
    static let neighbors = 64

    /// A hash whose low bits are the word's own, in runs of ``neighbors`` words, and whose other
    /// bits are the run's number mixed (``mix(_:seed:)``).
    ///
    /// `Set` and `Dictionary` probe linearly from the bucket the low bits pick, so words next to
    /// each other land in buckets next to each other, each run's at a random place: filling or
    /// emptying a large table in the words' order writes and reads it a run at a time, not at a
    /// random place per member (a cache miss each once the table outgrows the processor's
    /// caches). Meant for words that are sparse within their runs, like objects' addresses in
    /// 64-byte steps: runs that are full (consecutive keys) make long stretches of occupied
    /// buckets, which a lookup of a missing member walks to their end.
    ///
    /// For example:
    ///
    /// ```swift
    /// public func _rawHashValue(seed: Int) -> Int { HashMixing.mixKeepingNeighbors(address >> 6, seed: seed) }
    /// ```
    static func mixKeepingNeighbors(_ word: Int, seed: Int) -> Int {
        let low = neighbors - 1
        return mix(word >> neighbors.trailingZeroBitCount, seed: seed) & ~low | word & low
    }

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
