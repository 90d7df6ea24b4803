import Foundation

/// Assembles binary property lists byte by byte, for files no well-behaved writer makes:
/// sets, cycles, shared-reference bombs, impossible counts. Objects are given as their encoded
/// bytes; references are one byte (so at most 256 objects), offsets four.
///
/// For example:
///
/// ```swift
/// let data = RawPropertyList.make([RawPropertyList.array([0])])   // an array containing itself
/// ```
enum RawPropertyList {
    static func make(_ objects: [[UInt8]], top: Int = 0, referenceSize: UInt8 = 1) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableStart = bytes.count
        for offset in offsets { bytes += bigEndian(UInt64(offset), size: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, referenceSize]
        bytes += bigEndian(UInt64(objects.count), size: 8) + bigEndian(UInt64(top), size: 8) + bigEndian(UInt64(tableStart), size: 8)
        return Data(bytes)
    }

    static func string(_ text: String) -> [UInt8] { marker(0x5, count: text.utf8.count) + Array(text.utf8) }
    static func integer(_ value: UInt8) -> [UInt8] { [0x10, value] }
    static func array(_ references: [UInt8]) -> [UInt8] { marker(0xA, count: references.count) + references }
    static func set(_ references: [UInt8]) -> [UInt8] { marker(0xC, count: references.count) + references }
    static func dictionary(_ keys: [UInt8], _ values: [UInt8]) -> [UInt8] { marker(0xD, count: keys.count) + keys + values }

    /// A store's top dictionary whose metadata is object `metadata`; the top is object 0 and
    /// objects 1–11 are its keys and values, so the caller's objects start at 12.
    static func store(metadata: UInt8, entities: UInt8 = 11, extra: [[UInt8]]) -> Data {
        make([
            dictionary([1, 2, 3, 4, 5, 6], [7, 8, 9, 10, metadata, entities]),
            string("format"), string("version"), string("storeUUID"), string("nextObjectID"), string("metadata"), string("entities"),
            string("Stowage.BinaryStore"), integer(1), string("U"), integer(1),
            dictionary([], []),
        ] + extra)
    }

    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0xF, 0x13] + bigEndian(UInt64(count), size: 8)
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
