/// SplitMix64: a small, fast random number generator that gives the same sequence on every
/// platform, so randomized tests reproduce their failures.
///
/// For example:
///
/// ```swift
/// var random = SeededGenerator(state: 0x5EED)
/// let byte = UInt8(truncatingIfNeeded: random.next())
/// ```
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
