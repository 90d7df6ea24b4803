import Foundation

/// The buffer behind ``StoreValues``: a header naming the layout, then the tags and slots the
/// layout describes, in one allocation.
///
/// Tags, two bits per property (four to a byte, 32 to a word, so that ten properties take one
/// word rather than two: a 144-byte heap block per row of ten attributes rather than 160):
/// 0 the property is `.null`, 1 its value is in its slot as the slot's kind, 2 the slot holds a
/// ``Box`` (a value of another kind). A tag's high bit is set for boxes alone, so a buffer knows
/// it holds none from its tag words.
final class StoreValuesStorage: ManagedBuffer<StoreValueLayout, UInt64> {
    /// A value of another kind than its slot's.
    final class Box: Sendable {
        let value: StoreValue
        init(_ value: StoreValue) { self.value = value }
    }

    static let nullTag: UInt8 = 0
    static let inPlaceTag: UInt8 = 1
    static let boxedTag: UInt8 = 2

    /// The tag of the property at `index`: two bits of the byte `index / 4`.
    @inline(__always)
    private static func tag(_ bytes: UnsafeMutableRawPointer, _ index: Int) -> UInt8 {
        (bytes.load(fromByteOffset: index &>> 2, as: UInt8.self) &>> UInt8(truncatingIfNeeded: (index & 3) &<< 1)) & 3
    }

    /// Sets a tag that is null (zero) now: its bits need no clearing.
    @inline(__always)
    private static func setNullTag(to tag: UInt8, _ bytes: UnsafeMutableRawPointer, _ index: Int) {
        let byte = bytes.load(fromByteOffset: index &>> 2, as: UInt8.self)
        bytes.storeBytes(of: byte | (tag &<< UInt8(truncatingIfNeeded: (index & 3) &<< 1)), toByteOffset: index &>> 2, as: UInt8.self)
    }

    @inline(__always)
    private static func setTag(_ tag: UInt8, _ bytes: UnsafeMutableRawPointer, _ index: Int) {
        let shift = UInt8(truncatingIfNeeded: (index & 3) &<< 1)
        let byte = bytes.load(fromByteOffset: index &>> 2, as: UInt8.self)
        bytes.storeBytes(of: (byte & ~(3 &<< shift)) | (tag &<< shift), toByteOffset: index &>> 2, as: UInt8.self)
    }

    /// A buffer of `layout` with every property `.null`.
    static func make(_ layout: StoreValueLayout) -> StoreValuesStorage {
        let made = unsafeDowncast(create(minimumCapacity: layout.wordCount) { _ in layout }, to: StoreValuesStorage.self)
        made.withUnsafeMutablePointerToElements { words in
            // The tags are zero (null); the slots are left uninitialized until set.
            words.initialize(repeating: 0, count: StoreValueLayout.tagWordCount(layout.count))
        }
        return made
    }

    // The header and the layout's parts are read through the header's pointer: `header` is a
    // stored property of a class, and the runtime checked exclusive access to it on every read
    // (a sixth of a fetch).

    /// The layout the buffer follows.
    var layout: StoreValueLayout { withUnsafeMutablePointerToHeader { $0.pointee } }

    /// The number of properties.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// The slot of the property at `index`.
    private func slot(_ index: Int) -> StoreValueLayout.Slot {
        withUnsafeMutablePointerToHeader { $0.pointee.slots[index] }
    }

    /// The start of the tags and slots (valid while the buffer lives).
    var bytes: UnsafeMutableRawPointer {
        withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }
    }

    /// Whether any tag is a box's.
    private func holdsBoxes(_ bytes: UnsafeMutableRawPointer) -> Bool {
        for word in 0..<StoreValueLayout.tagWordCount(count)
        where bytes.load(fromByteOffset: word * 8, as: UInt64.self) & 0xAAAA_AAAA_AAAA_AAAA != 0 {
            return true
        }
        return false
    }

    // MARK: Reading

    @inline(__always)
    func value(at index: Int) -> StoreValue {
        let bytes = self.bytes
        let tag = Self.tag(bytes, index)
        if tag == Self.nullTag { return .null }
        let slot = slot(index)
        let place = bytes + Int(slot.offset)
        if tag == Self.boxedTag { return place.assumingMemoryBound(to: Box.self).pointee.value }
        switch slot.kind {
        case .integer: return .integer(place.load(as: Int64.self))
        case .double: return .double(place.load(as: Double.self))
        case .float: return .float(place.load(as: Float.self))
        case .boolean: return .boolean(place.load(as: Bool.self))
        case .date: return .date(place.load(as: Date.self))
        case .uuid: return .uuid(place.load(as: UUID.self))
        case .decimal: return .decimal(place.load(as: Decimal.self))
        case .string: return .string(place.assumingMemoryBound(to: String.self).pointee)
        case .data: return .data(place.assumingMemoryBound(to: Data.self).pointee)
        case .uri: return .uri(place.assumingMemoryBound(to: URL.self).pointee)
        case .objectID: return .objectID(place.assumingMemoryBound(to: ManagedObjectID.self).pointee)
        case .any: return place.assumingMemoryBound(to: StoreValue.self).pointee
        case .empty: return .null
        }
    }

    /// The value at `index` as `T` when its slot is of `kind` (whose Swift type `T` is) and
    /// holds it in place; `nil` for `.null`, a boxed value or a slot of another kind.
    @inline(__always)
    func inPlace<T>(_: T.Type, at index: Int, kind: StoreValueLayout.SlotKind) -> T? {
        let bytes = self.bytes
        let slot = slot(index)
        guard slot.kind == kind, Self.tag(bytes, index) == Self.inPlaceTag else { return nil }
        return (bytes + Int(slot.offset)).load(as: T.self)
    }

    /// Whether the value at `index` is `.null`, read from its tag alone.
    func isNull(at index: Int) -> Bool {
        Self.tag(bytes, index) == Self.nullTag
    }

    // MARK: Writing (the caller holds the only reference)

    /// Replaces the value at `index`.
    @inline(__always)
    func setValue(_ value: consuming StoreValue, at index: Int) {
        let bytes = self.bytes
        let slot = slot(index)
        let place = bytes + Int(slot.offset)
        let tag = Self.tag(bytes, index)
        if tag != Self.nullTag { release(place, tag: tag, kind: slot.kind) }
        Self.setTag(store(value, at: place, kind: slot.kind), bytes, index)
    }

    /// Sets the value at `index`, which is `.null`.
    @inline(__always)
    func initialize(_ value: consuming StoreValue, at index: Int) {
        let bytes = self.bytes
        let slot = slot(index)
        Self.setNullTag(to: store(value, at: bytes + Int(slot.offset), kind: slot.kind), bytes, index)
    }

    /// The kind of the slot of the property at `index`.
    @inline(__always)
    func kind(at index: Int) -> StoreValueLayout.SlotKind { slot(index).kind }

    /// Writes a plain value (a number, a Boolean, a date: no references) into the slot at
    /// `index` when the slot is of `kind` and `.null`; `false`, writing nothing, otherwise.
    @inline(__always)
    func initializeInPlace<T>(_ value: T, at index: Int, kind: StoreValueLayout.SlotKind) -> Bool {
        let bytes = self.bytes
        let slot = slot(index)
        guard slot.kind == kind, Self.tag(bytes, index) == Self.nullTag else { return false }
        (bytes + Int(slot.offset)).storeBytes(of: value, as: T.self)
        Self.setNullTag(to: Self.inPlaceTag, bytes, index)
        return true
    }

    /// Replaces the value at `index`, whatever it holds, with a value of its slot's own kind
    /// (`T` being that kind's Swift type), held in place.
    @inline(__always)
    func setInPlace<T>(_ value: consuming T, at index: Int) {
        let bytes = self.bytes
        let slot = slot(index)
        let place = bytes + Int(slot.offset)
        let tag = Self.tag(bytes, index)
        if tag != Self.nullTag { release(place, tag: tag, kind: slot.kind) }
        place.initializeMemory(as: T.self, to: value)
        Self.setTag(Self.inPlaceTag, bytes, index)
    }

    /// Moves a string into the slot at `index`, a string slot that is `.null`.
    @inline(__always)
    func initializeInPlace(string value: consuming String, at index: Int) {
        let bytes = self.bytes
        (bytes + Int(slot(index).offset)).bindMemory(to: String.self, capacity: 1).initialize(to: value)
        Self.setNullTag(to: Self.inPlaceTag, bytes, index)
    }

    /// Writes `value` into an empty slot of `kind` at `place` (moved in); returns its tag.
    @inline(__always)
    private func store(_ value: consuming StoreValue, at place: UnsafeMutableRawPointer, kind: StoreValueLayout.SlotKind) -> UInt8 {
        switch consume value {
        case .null: return Self.nullTag
        case .integer(let v) where kind == .integer: place.storeBytes(of: v, as: Int64.self)
        case .double(let v) where kind == .double: place.storeBytes(of: v, as: Double.self)
        case .float(let v) where kind == .float: place.storeBytes(of: v, as: Float.self)
        case .boolean(let v) where kind == .boolean: place.storeBytes(of: v, as: Bool.self)
        case .date(let v) where kind == .date: place.storeBytes(of: v, as: Date.self)
        case .uuid(let v) where kind == .uuid: place.storeBytes(of: v, as: UUID.self)
        case .decimal(let v) where kind == .decimal: place.storeBytes(of: v, as: Decimal.self)
        case .string(let v) where kind == .string: place.bindMemory(to: String.self, capacity: 1).initialize(to: v)
        case .data(let v) where kind == .data: place.bindMemory(to: Data.self, capacity: 1).initialize(to: v)
        case .uri(let v) where kind == .uri: place.bindMemory(to: URL.self, capacity: 1).initialize(to: v)
        case .objectID(let v) where kind == .objectID: place.bindMemory(to: ManagedObjectID.self, capacity: 1).initialize(to: v)
        case let other:
            if kind == .any {
                place.bindMemory(to: StoreValue.self, capacity: 1).initialize(to: other)
            } else {
                place.bindMemory(to: Box.self, capacity: 1).initialize(to: Box(other))
                return Self.boxedTag
            }
        }
        return Self.inPlaceTag
    }

    /// Releases what a slot holds (its tag says it holds something).
    ///
    /// Each value is moved out and dropped: `deinitialize(count:)` destroyed it through its
    /// type's value witness (two calls more per string, for every object let go).
    @inline(__always)
    private func release(_ place: UnsafeMutableRawPointer, tag: UInt8, kind: StoreValueLayout.SlotKind) {
        if tag == Self.boxedTag {
            _ = place.assumingMemoryBound(to: Box.self).move()
            return
        }
        switch kind {
        case .string: _ = place.assumingMemoryBound(to: String.self).move()
        case .data: _ = place.assumingMemoryBound(to: Data.self).move()
        case .uri: _ = place.assumingMemoryBound(to: URL.self).move()
        case .objectID: _ = place.assumingMemoryBound(to: ManagedObjectID.self).move()
        case .any: _ = place.assumingMemoryBound(to: StoreValue.self).move()
        case .integer, .double, .float, .boolean, .date, .uuid, .decimal, .empty: break
        }
    }

    // MARK: Copying and freeing

    /// A buffer of its own with the same values: the bytes copied at once, then a reference
    /// taken for each slot that holds one.
    func copy() -> StoreValuesStorage {
        let layout = self.layout
        let copy = StoreValuesStorage.make(layout)
        let from = bytes, to = copy.bytes
        to.copyMemory(from: from, byteCount: layout.wordCount * 8)
        if holdsBoxes(from) {
            for index in 0..<layout.count where Self.tag(from, index) == Self.boxedTag {
                let offset = Int(layout.slots[index].offset)
                (to + offset).initializeMemory(as: Box.self, repeating: (from + offset).assumingMemoryBound(to: Box.self).pointee, count: 1)
            }
        }
        for index in layout.referenceSlots where Self.tag(from, index) == Self.inPlaceTag {
            let slot = layout.slots[index]
            let source = from + Int(slot.offset), target = to + Int(slot.offset)
            switch slot.kind {
            case .string: target.initializeMemory(as: String.self, repeating: source.assumingMemoryBound(to: String.self).pointee, count: 1)
            case .data: target.initializeMemory(as: Data.self, repeating: source.assumingMemoryBound(to: Data.self).pointee, count: 1)
            case .uri: target.initializeMemory(as: URL.self, repeating: source.assumingMemoryBound(to: URL.self).pointee, count: 1)
            case .objectID:
                target.initializeMemory(
                    as: ManagedObjectID.self, repeating: source.assumingMemoryBound(to: ManagedObjectID.self).pointee, count: 1)
            case .any:
                target.initializeMemory(as: StoreValue.self, repeating: source.assumingMemoryBound(to: StoreValue.self).pointee, count: 1)
            case .integer, .double, .float, .boolean, .date, .uuid, .decimal, .empty: break
            }
        }
        return copy
    }

    deinit {
        let bytes = self.bytes
        // The layout is read in place, not copied out (a retain and a release of it, and of its
        // arrays, for every row freed): the buffer holds its header until after this.
        withUnsafeMutablePointerToHeader { header in
            if holdsBoxes(bytes) {
                for index in 0..<header.pointee.count where Self.tag(bytes, index) == Self.boxedTag {
                    _ = (bytes + Int(header.pointee.slots[index].offset)).assumingMemoryBound(to: Box.self).move()
                }
            }
            for index in header.pointee.referenceSlots where Self.tag(bytes, index) == Self.inPlaceTag {
                let slot = header.pointee.slots[index]
                release(bytes + Int(slot.offset), tag: Self.inPlaceTag, kind: slot.kind)
            }
        }
    }
}
