import Foundation

/// Byte comparisons for names read from a document (`memcmp`, no `String`).
enum XMLBytes {
    /// Whether `name` holds exactly the bytes of `expected`.
    @inline(__always)
    static func equal(_ expected: [UInt8], _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard expected.count == name.count else { return false }
        guard let other = name.baseAddress else { return expected.isEmpty }
        return expected.withUnsafeBufferPointer { mine in
            guard let mine = mine.baseAddress else { return true }
            return memcmp(mine, other, name.count) == 0
        }
    }
}
