import Foundation

/// An object's values, one per property of its entity by index, laid out compactly by the
/// properties' types: what ``StoreSnapshot/values`` holds and what an object keeps.
///
/// A `StoreValues` reads and writes like an array of ``StoreValue``s (it is a mutable
/// random-access collection of them, indexed from 0), and copies on write like one; underneath,
/// each value sits in a slot sized for its property's type (8 bytes for a number or a date, 16
/// for a string), so a row takes about half an array's memory. A value of another kind than its
/// property's type is kept as it is, boxed.
///
/// For example:
///
/// ```swift
/// var values = StoreSnapshot(objectID: id, version: 1, entity: post).values
/// values.count                  // post.properties.count, all .null
/// let first = values[0]         // a StoreValue
/// for value in values where !value.isNull { print(value) }
/// ```
public struct StoreValues: RandomAccessCollection, MutableCollection, @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked: copy on write — a buffer is changed only while this holds the only reference
    // to it, so a buffer two values share (two threads' copies) is never written.
    private var storage: StoreValuesStorage

    /// Values of no properties.
    public init() {
        self = Self.empty
    }

    /// Every property of `layout` `.null`.
    package init(layout: StoreValueLayout) {
        storage = StoreValuesStorage.make(layout)
    }

    private static let empty = StoreValues(layout: .empty)

    /// The layout the values follow.
    package var layout: StoreValueLayout { storage.layout }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    /// The value of the property at `index`.
    public subscript(index: Int) -> StoreValue {
        get {
            precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
            return storage.value(at: index)
        }
        set {
            precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            storage.setValue(newValue, at: index)
        }
    }

    /// Sets the value at `index` of values just made (``EntityLayout/makeNullValues()``), not
    /// shared and still `.null` there: a row being read. Skips what the subscript's setter
    /// checks (a shared buffer, a value to release), a third of the cost of a value read.
    package mutating func initialize(_ value: consuming StoreValue, at index: Int) {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        if storage.isNull(at: index) { storage.initialize(value, at: index) } else { self[index] = value }
    }

    /// Sets the value at `index` of values just made, as ``initialize(_:at:)`` does, from a
    /// value of the slot's own kind, without making a ``StoreValue`` (a driver reading a row
    /// knows each column's kind): `Int64` for an integer slot, `Double`, `Bool`, `Date` or
    /// `String`. A value of another kind than the slot's is set through ``initialize(_:at:)``.
    @inline(__always)
    package mutating func initialize(integer value: Int64, at index: Int) {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        if !storage.initializeInPlace(value, at: index, kind: .integer) { initialize(.integer(value), at: index) }
    }

    @inline(__always)
    package mutating func initialize(double value: Double, at index: Int) {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        if !storage.initializeInPlace(value, at: index, kind: .double) { initialize(.double(value), at: index) }
    }

    @inline(__always)
    package mutating func initialize(boolean value: Bool, at index: Int) {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        if !storage.initializeInPlace(value, at: index, kind: .boolean) { initialize(.boolean(value), at: index) }
    }

    @inline(__always)
    package mutating func initialize(date value: Date, at index: Int) {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        if !storage.initializeInPlace(value, at: index, kind: .date) { initialize(.date(value), at: index) }
    }

    @inline(__always)
    package mutating func initialize(string value: consuming String, at index: Int) {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        if storage.isNull(at: index), storage.kind(at: index) == .string {
            storage.initializeInPlace(string: value, at: index)
        } else {
            initialize(.string(value), at: index)
        }
    }

    /// The value at `index` when its slot is of the value's own kind and holds it in place
    /// (an integer slot's `Int64`, a double slot's `Double`, and so on), read without making a
    /// ``StoreValue``; `nil` otherwise (`.null`, a value of another kind), for the subscript.
    ///
    /// Calls, not inlined, marked as reading alone (the string's, as releasing nothing: it
    /// returns a copy): the caller then lends an object's values as they are, where it took a
    /// reference to their buffer around the call (a retain and a release per read).
    @inline(never) @_effects(readonly)
    package func integer(inPlaceAt index: Int) -> Int64? { inPlace(Int64.self, at: index, kind: .integer) }
    @inline(never) @_effects(readonly)
    package func double(inPlaceAt index: Int) -> Double? { inPlace(Double.self, at: index, kind: .double) }
    @inline(never) @_effects(readonly)
    package func boolean(inPlaceAt index: Int) -> Bool? { inPlace(Bool.self, at: index, kind: .boolean) }
    @inline(never) @_effects(readonly)
    package func date(inPlaceAt index: Int) -> Date? { inPlace(Date.self, at: index, kind: .date) }
    @inline(never) @_effects(releasenone)
    package func string(inPlaceAt index: Int) -> String? { inPlace(String.self, at: index, kind: .string) }

    /// The kind of the slot at `index`.
    package func kind(at index: Int) -> StoreValueLayout.SlotKind {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        return storage.kind(at: index)
    }

    /// Sets the value at `index` to a value of its slot's own kind (`Int64` for an integer
    /// slot, `Double`, `Bool`, `Date`, `String`: see ``kind(at:)``), as the subscript sets
    /// `.double(value)` and the like, without making a ``StoreValue``.
    @inline(__always)
    package mutating func set<T>(inPlace value: consuming T, at index: Int) {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.setInPlace(value, at: index)
    }

    @inline(__always)
    private func inPlace<T>(_ type: T.Type, at index: Int, kind: StoreValueLayout.SlotKind) -> T? {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        return storage.inPlace(type, at: index, kind: kind)
    }

    /// Whether the value at `index` is `.null` (read without making the value).
    public func isNull(at index: Int) -> Bool {
        precondition(index >= 0 && index < storage.count, "StoreValues index out of range")
        return storage.isNull(at: index)
    }

    /// Whether both are the same buffer (then equal without comparing values).
    package func sharesStorage(with other: StoreValues) -> Bool { storage === other.storage }

    public static func == (lhs: StoreValues, rhs: StoreValues) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for value in self { hasher.combine(value) }
    }

    public var description: String { "[" + map(\.description).joined(separator: ", ") + "]" }
}
