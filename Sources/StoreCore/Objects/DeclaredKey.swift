import Synchronization

/// The key a typed property declaration gives explicitly (`@Attribute("time") var occurredAt`),
/// held in four bytes: every object of a subclass holds one per declared property, so a
/// `String?` (16 bytes) each cost a class with ten properties 160 bytes per object. The key
/// lives once in a process-wide table; the declaration keeps its number (0: no explicit key,
/// the property's own name is the key).
///
/// For example (inside StoreCore):
///
/// ```swift
/// let key = DeclaredKey("time")
/// key.explicitKey          // "time"
/// DeclaredKey().explicitKey  // nil
/// ```
@usableFromInline
struct DeclaredKey: Sendable {
    @usableFromInline let number: UInt32

    /// No explicit key.
    init() { number = 0 }

    /// `key`, numbered in the table (the same key always gets the same number).
    init(_ key: String) { number = Self.table.withLock { $0.number(for: key) } }

    /// The explicit key, or `nil` when the property's name is the key. Read once per declaration
    /// and entity (``TypedPropertyIndexes`` remembers the index it leads to).
    @usableFromInline
    var explicitKey: String? {
        guard number != 0 else { return nil }
        return Self.table.withLock { $0.keys[Int(number) - 1] }
    }

    private struct Table {
        var keys: [String] = []
        var numbers: [String: UInt32] = [:]

        mutating func number(for key: String) -> UInt32 {
            if let known = numbers[key] { return known }
            keys.append(key)
            let number = UInt32(keys.count)
            numbers[key] = number
            return number
        }
    }

    private static let table = Mutex(Table())
}
