/// The constants of Apple's binary property list format, version `bplist00`.
///
/// A file is the 8-byte magic, then the objects, then an offset table (one big-endian offset
/// per object), then a 32-byte trailer: 6 unused bytes, the offset size, the object reference
/// size, and three big-endian `UInt64`s — object count, top object, offset table offset.
/// Each object starts with a marker byte: the type in the high nibble, a size or count in
/// the low nibble (`0xF` means an integer object with the count follows).
///
/// For example: `0x53 'a' 'b' 'c'` is the ASCII string "abc"; `0xA2 0x01 0x02` an array of
/// objects 1 and 2 (with 1-byte references).
enum BinaryPropertyListFormat {
    static let magic = Array("bplist00".utf8)
    static let trailerSize = 32

    static let boolFalse: UInt8 = 0x08
    static let boolTrue: UInt8 = 0x09
    static let integer: UInt8 = 0x1
    static let real: UInt8 = 0x2
    static let date: UInt8 = 0x33
    static let data: UInt8 = 0x4
    static let asciiString: UInt8 = 0x5
    static let utf16String: UInt8 = 0x6
    static let uid: UInt8 = 0x8
    static let array: UInt8 = 0xA
    static let set: UInt8 = 0xC
    static let dictionary: UInt8 = 0xD
    /// The low nibble meaning "the count follows as an integer object".
    static let extendedCount: UInt8 = 0xF

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value` unsigned.
    static func byteWidth(of value: UInt64) -> Int {
        switch value {
        case ...0xFF: 1
        case ...0xFFFF: 2
        case ...0xFFFF_FFFF: 4
        default: 8
        }
    }
}
