import Foundation

/// Typed, non-recursive access to single objects of the table, for readers that know the shape
/// they expect and decode it straight from the flat object table (the binary store's columns).
///
/// Every accessor checks the index, the marker and every length against the file, and throws
/// ``PropertyListError`` for anything else; none follows references, so none can loop or recurse.
///
/// For example:
///
/// ```swift
/// let table = try BinaryPropertyListTable(bytes)
/// let entries = try table.dictionaryEntries(ofObject: table.topObject)   // ["version": 12, …]
/// if let version = entries["version"], try table.kind(ofObject: version) == .integer {
///     print(try table.integer(ofObject: version))
/// }
/// ```
extension BinaryPropertyListTable {
    /// What an object is, from its marker alone.
    package enum Kind: Sendable, Equatable {
        case boolean
        case integer
        /// A real stored in 4 bytes (a `Float`).
        case real32
        /// A real stored in 8 bytes (a `Double`).
        case real64
        case date
        case data
        case string
        case uid
        case array
        case dictionary
        case set
        /// A null or fill marker, or an unknown one.
        case other
    }

    /// The elements of an array object: where its references start and how many there are.
    /// Read an element with ``BinaryPropertyListTable/element(_:of:)``.
    package struct ArrayReferences: Sendable {
        let content: Int
        package let count: Int
    }

    /// The kind of object `index`.
    package func kind(ofObject index: Int) throws(PropertyListError) -> Kind {
        let marker = bytes[try offset(ofObject: index)]
        switch marker >> 4 {
        case 0x0 where marker == Format.boolFalse || marker == Format.boolTrue: return .boolean
        case Format.integer: return .integer
        case Format.real where marker & 0x0F == 2: return .real32
        case Format.real where marker & 0x0F == 3: return .real64
        case _ where marker == Format.date: return .date
        case Format.data: return .data
        case Format.asciiString, Format.utf16String: return .string
        case Format.uid: return .uid
        case Format.array: return .array
        case Format.dictionary: return .dictionary
        case Format.set: return .set
        default: return .other
        }
    }

    /// Whether object `index` is an empty array.
    package func isEmptyArray(_ index: Int) throws(PropertyListError) -> Bool {
        bytes[try offset(ofObject: index)] == Format.array << 4
    }

    package func boolean(ofObject index: Int) throws(PropertyListError) -> Bool {
        let start = try offset(ofObject: index)
        switch bytes[start] {
        case Format.boolTrue: return true
        case Format.boolFalse: return false
        default: throw mismatch(start, "a boolean")
        }
    }

    package func integer(ofObject index: Int) throws(PropertyListError) -> Int64 {
        let start = try offset(ofObject: index)
        guard bytes[start] >> 4 == Format.integer else { throw mismatch(start, "an integer") }
        return try integer(at: start)
    }

    /// A real of 4 or 8 bytes, as a `Double`.
    package func real(ofObject index: Int) throws(PropertyListError) -> Double {
        let start = try offset(ofObject: index)
        switch bytes[start] {
        case Format.real << 4 | 2: return Double(Float(bitPattern: UInt32(try unsigned(at: start + 1, size: 4))))
        case Format.real << 4 | 3: return Double(bitPattern: try unsigned(at: start + 1, size: 8))
        default: throw mismatch(start, "a real")
        }
    }

    /// A 4-byte real, exactly.
    package func float32(ofObject index: Int) throws(PropertyListError) -> Float {
        let start = try offset(ofObject: index)
        guard bytes[start] == Format.real << 4 | 2 else { throw mismatch(start, "a 4-byte real") }
        return Float(bitPattern: UInt32(try unsigned(at: start + 1, size: 4)))
    }

    package func date(ofObject index: Int) throws(PropertyListError) -> Date {
        let start = try offset(ofObject: index)
        guard bytes[start] == Format.date else { throw mismatch(start, "a date") }
        return Date(timeIntervalSinceReferenceDate: Double(bitPattern: try unsigned(at: start + 1, size: 8)))
    }

    package func data(ofObject index: Int) throws(PropertyListError) -> Data {
        Data(try dataBytes(ofObject: index))
    }

    /// The bytes of a data object, without copying them.
    package func dataBytes(ofObject index: Int) throws(PropertyListError) -> ArraySlice<UInt8> {
        let start = try offset(ofObject: index)
        guard bytes[start] >> 4 == Format.data else { throw mismatch(start, "data") }
        let (count, content) = try count(at: start, unitSize: 1)
        return bytes[content..<(content + count)]
    }

    /// An ASCII or UTF-16 string, with its exact Unicode scalars.
    package func string(ofObject index: Int) throws(PropertyListError) -> String {
        let start = try offset(ofObject: index)
        switch bytes[start] >> 4 {
        case Format.asciiString:
            let (count, content) = try count(at: start, unitSize: 1)
            let slice = bytes[content..<(content + count)]
            guard !slice.contains(where: { $0 >= 0x80 }) else {
                throw PropertyListError(.corrupt, offset: start, "ASCII string holds a byte above 0x7F")
            }
            return String(decoding: slice, as: UTF8.self)
        case Format.utf16String:
            let (count, content) = try count(at: start, unitSize: 2)
            let units = (0..<count).lazy.map { [bytes] in
                UInt16(bytes[content + 2 * $0]) << 8 | UInt16(bytes[content + 2 * $0 + 1])
            }
            guard let string = String(validating: units, as: UTF16.self) else {
                throw PropertyListError(.corrupt, offset: start, "UTF-16 string has an unpaired surrogate")
            }
            return string
        default:
            throw mismatch(start, "a string")
        }
    }

    /// The element references of an array object.
    package func array(ofObject index: Int) throws(PropertyListError) -> ArrayReferences {
        let start = try offset(ofObject: index)
        guard bytes[start] >> 4 == Format.array else { throw mismatch(start, "an array") }
        let (count, content) = try count(at: start, unitSize: referenceSize)
        return ArrayReferences(content: content, count: count)
    }

    /// Element `position` of an array (which must be below its count): an object index.
    package func element(_ position: Int, of array: ArrayReferences) throws(PropertyListError) -> Int {
        guard position >= 0, position < array.count else {
            throw PropertyListError(.corrupt, "element \(position) of an array of \(array.count)")
        }
        let at = array.content + position * referenceSize
        // In bounds: `count(at:unitSize:)` checked that the array's references fit the object area.
        let reference = bytes.withUnsafeBufferPointer { buffer in
            var reference = 0
            for index in at..<(at + referenceSize) { reference = reference << 8 | Int(buffer[index]) }
            return reference
        }
        guard reference >= 0, reference < objectCount else {
            throw PropertyListError(.corrupt, offset: at, "object reference \(reference) out of range (\(objectCount) objects)")
        }
        return reference
    }

    /// The entries of a dictionary object: each key (which must be a string, and distinct) and
    /// the index of its value.
    package func dictionaryEntries(ofObject index: Int) throws(PropertyListError) -> [String: Int] {
        let start = try offset(ofObject: index)
        guard bytes[start] >> 4 == Format.dictionary else { throw mismatch(start, "a dictionary") }
        let (count, content) = try count(at: start, unitSize: 2 * referenceSize)
        let references = ArrayReferences(content: content, count: 2 * count)
        var entries: [String: Int] = [:]
        entries.reserveCapacity(count)
        for position in 0..<count {
            let keyIndex = try element(position, of: references)
            guard try kind(ofObject: keyIndex) == .string else {
                throw PropertyListError(.corrupt, offset: start, "dictionary (object \(index)) has a key that is not a string")
            }
            let key = try string(ofObject: keyIndex)
            guard entries.updateValue(try element(count + position, of: references), forKey: key) == nil else {
                throw PropertyListError(.corrupt, offset: start, "dictionary (object \(index)) repeats the key \"\(key)\"")
            }
        }
        return entries
    }

    private func mismatch(_ start: Int, _ expected: String) -> PropertyListError {
        PropertyListError(.corrupt, offset: start, "expected \(expected), found an object with marker 0x\(hex(bytes[start]))")
    }
}
