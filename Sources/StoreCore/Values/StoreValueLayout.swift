/// Where each property's value sits in a ``StoreValues`` buffer: a two-bit tag per property
/// (null, held in its slot, or boxed), then one slot per property sized for the value its type
/// holds — 8 bytes for a number, a date or a Boolean, 16 for a string, data, a UUID, a URL or an
/// object ID, 24 for a decimal or a value of any kind. A row of ten attributes takes ~130 bytes
/// this way, where an array of ``StoreValue``s (24 bytes each, whatever they hold) took 272.
///
/// Computed once per entity (see ``EntityLayout``); every ``StoreValues`` of the entity shares it.
///
/// For example:
///
/// ```swift
/// let layout = StoreValueLayout(slotKinds: [.integer, .string])
/// var values = StoreValues(layout: layout)   // [.null, .null]
/// values[1] = "Misty Morning"
/// ```
package final class StoreValueLayout: @unchecked Sendable {
    // @unchecked: `slots` points to memory written once, in `init`, and only read after.
    /// What a slot is sized and typed for. A value of another kind (a string set on an integer
    /// attribute, which the next save refuses) is kept boxed in the slot; every slot is at least
    /// 8 bytes so that a box fits.
    package enum SlotKind: UInt8, Sendable {
        case integer, double, float, boolean, date, uuid, decimal
        case string, data, uri, objectID
        /// Any value, as a ``StoreValue`` (transformable and undefined attributes).
        case any
        /// Nothing but `.null` in place (to-many relationships); anything else is boxed.
        case empty

        /// The slot's size in bytes (a multiple of 8, so that every slot stays aligned).
        var byteCount: Int {
            switch self {
            case .integer, .double, .float, .boolean, .date, .empty: 8
            case .uuid, .string, .data, .uri, .objectID: 16
            case .decimal, .any: 24
            }
        }

        /// Whether a value held in place needs its references released.
        var holdsReferences: Bool {
            switch self {
            case .string, .data, .uri, .objectID, .any: true
            case .integer, .double, .float, .boolean, .date, .uuid, .decimal, .empty: false
            }
        }

        /// The slot kind for an attribute type's values.
        package init(_ type: AttributeType) {
            switch type {
            case .integer16, .integer32, .integer64: self = .integer
            case .double: self = .double
            case .float: self = .float
            case .boolean: self = .boolean
            case .date: self = .date
            case .uuid: self = .uuid
            case .decimal: self = .decimal
            case .string: self = .string
            case .binaryData: self = .data
            case .uri: self = .uri
            case .objectID: self = .objectID
            case .transformable, .undefined, .composite: self = .any
            }
        }
    }

    /// A property's slot: its byte offset in the buffer and its kind.
    struct Slot: Sendable {
        let offset: UInt32
        let kind: SlotKind
    }

    /// The slots, by property index (`count` of them): read through a pointer, without an
    /// array's bounds check and indirection, on every value read and written.
    let slots: UnsafeMutablePointer<Slot>
    /// The number of properties.
    let count: Int
    /// The buffer's size in 8-byte words: the tags, then the slots.
    let wordCount: Int
    /// The slots that hold references when they hold a value in place (released and copied one
    /// by one); the others are copied as bytes.
    let referenceSlots: ContiguousArray<Int>

    /// A layout with one slot per kind, in order.
    package init(slotKinds: [SlotKind]) {
        let tagBytes = Self.tagWordCount(slotKinds.count) * 8
        var offset = tagBytes
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: slotKinds.count)
        var referenceSlots = ContiguousArray<Int>()
        for (index, kind) in slotKinds.enumerated() {
            (slots + index).initialize(to: Slot(offset: UInt32(offset), kind: kind))
            if kind.holdsReferences { referenceSlots.append(index) }
            offset += kind.byteCount
        }
        self.slots = slots
        self.count = slotKinds.count
        self.wordCount = offset / 8
        self.referenceSlots = referenceSlots
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The layout of no properties.
    static let empty = StoreValueLayout(slotKinds: [])

    /// The words the tags of `count` properties take: two bits each, 32 to a word.
    static func tagWordCount(_ count: Int) -> Int { (count + 31) / 32 }
}
