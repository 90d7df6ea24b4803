import Foundation

/// The validated object table of a binary property list: trailer, offsets, and one object at
/// a time, parsed without following its references. ``BinaryPropertyListReader`` walks it.
///
/// Every read is bounds-checked: objects must lie between the magic and the offset table,
/// references must name an object, and every declared length must fit in the bytes left. The
/// offset table is decoded once, into one `Int` per object — which the file's own offset table
/// bounds (each object takes at least one byte of it).
///
/// For example:
///
/// ```swift
/// let table = try BinaryPropertyListTable(bytes)
/// let top = try table.object(at: table.topObject)   // .scalar, .array or .dictionary
/// ```
///
/// Readers that know the shape they expect (the binary store's columns) read objects one by one
/// with the typed accessors of `BinaryPropertyListTable+Objects.swift` instead.
package struct BinaryPropertyListTable: Sendable {
    /// One object, with container elements as object indexes.
    enum Object {
        case scalar(PropertyListValue)
        case array([Int])
        /// Keys then values: `count / 2` of each.
        case dictionary([Int])
    }

    typealias Format = BinaryPropertyListFormat
    let bytes: [UInt8]
    let offsetSize: Int
    let referenceSize: Int
    let offsetTableStart: Int
    /// Where each object starts, as the offset table says (checked to lie in the object area when used).
    let offsets: [Int]
    /// The number of objects in the table (at least one).
    package let objectCount: Int
    /// The index of the top object.
    package let topObject: Int

    /// Checks the magic and the trailer, and keeps the bytes.
    ///
    /// - Throws: ``PropertyListError`` — `notBinaryPropertyList` without the magic,
    ///   `corrupt` when the trailer does not describe an offset table inside the file
    ///   (as when the file is truncated).
    package init(_ bytes: [UInt8]) throws(PropertyListError) {
        self.bytes = bytes
        guard bytes.starts(with: Format.magic) else {
            throw PropertyListError(.notBinaryPropertyList, offset: 0, "data does not start with bplist00")
        }
        // Magic, at least one object byte and one offset byte, trailer.
        guard bytes.count >= Format.magic.count + 2 + Format.trailerSize else {
            throw PropertyListError(.corrupt, "file of \(bytes.count) bytes is too short for a trailer")
        }
        let trailer = bytes.count - Format.trailerSize
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw PropertyListError(.corrupt, offset: trailer + 6, "offset size \(offsetSize) or reference size \(referenceSize) is not 1 to 8")
        }
        let count = Self.bigEndian(bytes[(trailer + 8)..<(trailer + 16)])
        let top = Self.bigEndian(bytes[(trailer + 16)..<(trailer + 24)])
        let tableStart = Self.bigEndian(bytes[(trailer + 24)..<trailer + 32])
        guard tableStart > Format.magic.count, tableStart < trailer else {
            throw PropertyListError(.corrupt, offset: trailer + 24, "offset table at \(tableStart) is outside the file")
        }
        offsetTableStart = Int(tableStart)
        // Each object needs an offset entry, so the count is bounded by the table's size.
        guard count >= 1, count <= UInt64((trailer - offsetTableStart) / offsetSize) else {
            throw PropertyListError(.corrupt, offset: trailer + 8, "object count \(count) does not fit the offset table")
        }
        objectCount = Int(count)
        guard top < count else {
            throw PropertyListError(.corrupt, offset: trailer + 16, "top object \(top) out of range (\(count) objects)")
        }
        topObject = Int(top)
        // Decoded once, checked when used: each object is reached many times by a column reader.
        var offsets = [Int](repeating: -1, count: objectCount)
        for index in 0..<objectCount {
            var offset = 0
            for position in (offsetTableStart + index * offsetSize)..<(offsetTableStart + (index + 1) * offsetSize) {
                offset = offset << 8 | Int(bytes[position])
            }
            offsets[index] = offset
        }
        self.offsets = offsets
    }

    /// Parses object `index` (which must be below ``objectCount``).
    func object(at index: Int) throws(PropertyListError) -> Object {
        let start = try offset(ofObject: index)
        let marker = bytes[start]
        let info = marker & 0x0F
        switch marker >> 4 {
        case 0x0 where marker == Format.boolFalse || marker == Format.boolTrue:
            return .scalar(.boolean(try boolean(ofObject: index)))
        case 0x0:
            throw PropertyListError(.unsupported, offset: start, "null and fill markers (0x\(hex(marker))) are not supported")
        case Format.integer:
            return .scalar(.integer(try integer(ofObject: index)))
        case Format.real where info == 2 || info == 3:
            return .scalar(.real(try real(ofObject: index)))
        case _ where marker == Format.date:
            return .scalar(.date(try date(ofObject: index)))
        case Format.data:
            return .scalar(.data(try data(ofObject: index)))
        case Format.asciiString, Format.utf16String:
            return .scalar(.string(try string(ofObject: index)))
        case Format.uid:
            guard info < 8 else {
                throw PropertyListError(.unsupported, offset: start, "UID of \(info + 1) bytes")
            }
            return .scalar(.uid(try unsigned(at: start + 1, size: Int(info) + 1)))
        case Format.array:
            let (count, content) = try count(at: start, unitSize: referenceSize)
            return .array(try references(at: content, count: count))
        case Format.dictionary:
            let (count, content) = try count(at: start, unitSize: 2 * referenceSize)
            return .dictionary(try references(at: content, count: 2 * count))
        case Format.set:
            throw PropertyListError(.unsupported, offset: start, "sets are not supported")
        default:
            throw PropertyListError(.corrupt, offset: start, "unknown object marker 0x\(hex(marker))")
        }
    }

    // MARK: Reading

    /// Where object `index` starts, checked to lie in the object area.
    func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        guard index >= 0, index < offsets.count else {
            throw PropertyListError(.corrupt, "object \(index) out of range (\(offsets.count) objects)")
        }
        let offset = offsets[index]
        guard offset >= Format.magic.count, offset < offsetTableStart else {
            throw PropertyListError(.corrupt, offset: offsetTableStart + index * offsetSize, "object \(index) offset \(offset) is outside the object area")
        }
        return offset
    }

    /// An integer object at `start`: 1, 2 or 4 bytes unsigned, 8 bytes signed, or 16 bytes
    /// signed when the value fits in `Int64` (Foundation writes values above `Int64.max` so).
    func integer(at start: Int) throws(PropertyListError) -> Int64 {
        let size = 1 << Int(bytes[start] & 0x0F)
        switch size {
        case 1, 2, 4:
            return Int64(try unsigned(at: start + 1, size: size))
        case 8:
            return Int64(bitPattern: try unsigned(at: start + 1, size: 8))
        case 16:
            let high = try unsigned(at: start + 1, size: 8)
            let low = Int64(bitPattern: try unsigned(at: start + 9, size: 8))
            guard high == (low < 0 ? UInt64.max : 0) else {
                throw PropertyListError(.unsupported, offset: start, "integer does not fit in 64 bits signed")
            }
            return low
        default:
            throw PropertyListError(.corrupt, offset: start, "integer of \(size) bytes")
        }
    }

    /// The count of the object at `start` (from its low nibble, or the integer after it) and
    /// where its content begins, checked so that `count * unitSize` bytes fit in the object area.
    func count(at start: Int, unitSize: Int) throws(PropertyListError) -> (count: Int, content: Int) {
        var count = Int(bytes[start] & 0x0F)
        var content = start + 1
        if count == Int(Format.extendedCount) {
            let intMarker = try unsigned(at: start + 1, size: 1)
            guard intMarker >> 4 == Format.integer, intMarker & 0x0F <= 3 else {
                throw PropertyListError(.corrupt, offset: start + 1, "count is not a 1 to 8 byte integer")
            }
            let size = 1 << Int(intMarker & 0x0F)
            let value = try unsigned(at: start + 2, size: size)
            guard value <= UInt64(Int.max) else {
                throw PropertyListError(.corrupt, offset: start + 2, "negative count")
            }
            count = Int(value)
            content = start + 2 + size
        }
        guard count <= (offsetTableStart - content) / unitSize else {
            throw PropertyListError(.corrupt, offset: start, "count \(count) runs past the object area")
        }
        return (count, content)
    }

    /// `count` object references starting at `start`, each checked to name an object.
    private func references(at start: Int, count: Int) throws(PropertyListError) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(count)
        for position in stride(from: start, to: start + count * referenceSize, by: referenceSize) {
            let reference = try unsigned(at: position, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw PropertyListError(.corrupt, offset: position, "object reference \(reference) out of range (\(objectCount) objects)")
            }
            result.append(Int(reference))
        }
        return result
    }

    /// A big-endian unsigned integer of `size` bytes at `offset`, which must end by `end`
    /// (the object area unless given).
    func unsigned(at offset: Int, size: Int, end: Int? = nil) throws(PropertyListError) -> UInt64 {
        guard size <= 8, offset >= 0, size <= (end ?? offsetTableStart) - offset else {
            throw PropertyListError(.corrupt, offset: offset, "\(size)-byte value runs past the end")
        }
        // In bounds (checked above); read without slicing, which would retain the buffer.
        return bytes.withUnsafeBytes { buffer in
            switch size {
            case 1: return UInt64(buffer[offset])
            case 2: return UInt64(UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
            case 4: return UInt64(UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            case 8: return UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            default:
                var value: UInt64 = 0
                for index in offset..<(offset + size) { value = value << 8 | UInt64(buffer[index]) }
                return value
            }
        }
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        return value
    }

    func hex(_ byte: UInt8) -> String {
        String(byte, radix: 16, uppercase: true)
    }
}
