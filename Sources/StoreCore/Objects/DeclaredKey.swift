import Synchronization

/// The key a typed property declaration gives explicitly (`@Attribute("time") var occurredAt`),
/// held in two bytes: every object of a subclass holds one per declared property, so a
/// `String?` (16 bytes) each cost a class with ten properties 160 bytes per object. The key
/// lives once in a process-wide table; the declaration keeps its number (0: no explicit key,
/// the property's own name is the key). A process declares far fewer than 65,534 distinct
/// keys; should one declare more, each further key reads as ``tooManyKeys``, which no entity
/// has, so that the model's check of the subclass names the declaration.
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
    @usableFromInline let number: UInt16

    /// No explicit key.
    init() { number = 0 }

    /// `key`, numbered in the table (the same key always gets the same number).
    init(_ key: String) { number = Self.table.withLock { $0.number(for: key) } }

    /// The explicit key, or `nil` when the property's name is the key. Read once per declaration
    /// and entity (``TypedPropertyIndexes`` remembers the index it leads to).
    @usableFromInline
    var explicitKey: String? {
        guard number != 0 else { return nil }
        guard number != Self.overflowNumber else { return Self.tooManyKeys }
        return Self.table.withLock { $0.keys[Int(number) - 1] }
    }

    private struct Table {
        var keys: [String] = []
        var numbers: [String: UInt16] = [:]

        mutating func number(for key: String) -> UInt16 {
            if let known = numbers[key] { return known }
            guard keys.count + 1 < Int(DeclaredKey.overflowNumber) else { return DeclaredKey.overflowNumber }
            keys.append(key)
            let number = UInt16(keys.count)
            numbers[key] = number
            return number
        }
    }

    private static let table = Mutex(Table())

    /// The number of every key beyond the table's 65,534.
    private static let overflowNumber = UInt16.max
    /// The key every key beyond the table's reads as.
    static let tooManyKeys = "(a key beyond the 65,534 distinct explicit keys a process can declare)"
}
