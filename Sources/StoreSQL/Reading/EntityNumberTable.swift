/// Values by entity number (`Z_ENT`), read once per fetched row: an array indexed by number,
/// since a store's entity numbers are small (1, 2, 3, …) — no hashing per row. Numbers beyond
/// the array (a store whose numbering is unusual) fall back to a dictionary.
///
/// For example:
///
/// ```swift
/// let entities = EntityNumberTable([1: post, 2: tag])
/// entities[2]   // tag
/// entities[9]   // nil
/// ```
package struct EntityNumberTable<Value>: @unchecked Sendable {
    // @unchecked: immutable once made; Sendable exactly when `Value` is (the tables here hold
    // entities, IDs and field lists, all Sendable).
    private let slots: [Value?]
    private let others: [Int64: Value]
    /// Numbers up to this are kept in the array.
    private static var arrayLimit: Int64 { 4_096 }

    package init(_ values: [Int64: Value]) {
        var slots: [Value?] = Array(repeating: nil, count: Int(values.keys.filter { $0 >= 0 && $0 < Self.arrayLimit }.max() ?? -1) + 1)
        var others: [Int64: Value] = [:]
        for (number, value) in values {
            if number >= 0 && number < Self.arrayLimit { slots[Int(number)] = value } else { others[number] = value }
        }
        self.slots = slots
        self.others = others
    }

    package subscript(number: Int64) -> Value? {
        if number >= 0 && number < Int64(slots.count) { return slots[Int(number)] }
        return others.isEmpty ? nil : others[number]
    }
}
