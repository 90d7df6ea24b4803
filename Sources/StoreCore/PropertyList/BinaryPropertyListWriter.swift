import Foundation

/// Writes property list values as binary property lists (`bplist00`) that Foundation's
/// `PropertyListSerialization` and ``BinaryPropertyListReader`` read.
///
/// Output is deterministic: dictionary keys are written sorted, and equal strings, integers,
/// booleans, data and UIDs are written once and shared (strings compared by their exact
/// Unicode scalars, so canonically equivalent spellings stay distinct). Strings are ASCII
/// when they can be, UTF-16 big-endian otherwise; integers take 1, 2, 4 or 8 bytes (negative
/// ones always 8, as Apple's format reads 1 to 4 bytes as unsigned); offsets and object
/// references take the fewest bytes that hold them.
///
/// For example:
///
/// ```swift
/// let blob = BinaryPropertyListWriter().write(["NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 637])
/// ```
package struct BinaryPropertyListWriter: Sendable {
    package init() {}

    /// Encodes `value` as the top object of a binary property list.
    ///
    /// - Complexity: O(*n* log *n*) in the number of nodes (for sorting dictionary keys).
    package func write(_ value: PropertyListValue) -> Data {
        var objects = ObjectList()
        let top = objects.add(value)
        let referenceSize = Format.byteWidth(of: UInt64(objects.list.count - 1))
        var output = Format.magic
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.list.count)
        for object in objects.list {
            offsets.append(output.count)
            Self.encode(object, referenceSize: referenceSize, into: &output)
        }
        let offsetTableStart = output.count
        let offsetSize = Format.byteWidth(of: UInt64(offsets.last ?? 0))
        for offset in offsets {
            Self.append(UInt64(offset), size: offsetSize, to: &output)
        }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        Self.append(UInt64(objects.list.count), size: 8, to: &output)
        Self.append(UInt64(top), size: 8, to: &output)
        Self.append(UInt64(offsetTableStart), size: 8, to: &output)
        return Data(output)
    }
}

extension BinaryPropertyListWriter {
    private typealias Format = BinaryPropertyListFormat

    /// One object of the flat table, with container elements as object indexes.
    private enum FlatObject {
        case scalar(PropertyListValue)
        case array([Int])
        /// Keys then values.
        case dictionary([Int])
    }

    /// What makes two scalars the same object; strings by their exact UTF-8 bytes.
    private enum UniqueKey: Hashable {
        case string([UInt8])
        case other(PropertyListValue)
    }

    /// The flat object table, in depth-first order from the top object (index 0).
    private struct ObjectList {
        var list: [FlatObject] = []
        private var uniqued: [UniqueKey: Int] = [:]

        mutating func add(_ value: PropertyListValue) -> Int {
            switch value {
            case .array(let elements):
                let index = reserve()
                list[index] = .array(elements.map { add($0) })
                return index
            case .dictionary(let dictionary):
                let index = reserve()
                let entries = dictionary.sorted { $0.key < $1.key }
                let keys = entries.map { add(.string($0.key)) }
                list[index] = .dictionary(keys + entries.map { add($0.value) })
                return index
            case .real, .date:
                // Not uniqued: Double equality would merge 0.0 with -0.0 and never match NaN.
                list.append(.scalar(value))
                return list.count - 1
            case .string(let string):
                return addUniqued(value, key: .string(Array(string.utf8)))
            case .integer, .boolean, .data, .uid:
                return addUniqued(value, key: .other(value))
            }
        }

        private mutating func reserve() -> Int {
            list.append(.array([]))
            return list.count - 1
        }

        private mutating func addUniqued(_ value: PropertyListValue, key: UniqueKey) -> Int {
            if let index = uniqued[key] { return index }
            list.append(.scalar(value))
            uniqued[key] = list.count - 1
            return list.count - 1
        }
    }

    private static func encode(_ object: FlatObject, referenceSize: Int, into output: inout [UInt8]) {
        switch object {
        case .array(let references):
            appendMarker(Format.array, count: references.count, to: &output)
            for reference in references { append(UInt64(reference), size: referenceSize, to: &output) }
        case .dictionary(let references):
            appendMarker(Format.dictionary, count: references.count / 2, to: &output)
            for reference in references { append(UInt64(reference), size: referenceSize, to: &output) }
        case .scalar(let value):
            encode(value, into: &output)
        }
    }

    private static func encode(_ scalar: PropertyListValue, into output: inout [UInt8]) {
        switch scalar {
        case .boolean(let value):
            output.append(value ? Format.boolTrue : Format.boolFalse)
        case .integer(let value):
            appendInteger(value, to: &output)
        case .real(let value):
            output.append(Format.real << 4 | 3)
            append(value.bitPattern, size: 8, to: &output)
        case .date(let date):
            output.append(Format.date)
            append(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &output)
        case .data(let data):
            appendMarker(Format.data, count: data.count, to: &output)
            output += data
        case .string(let string) where string.utf8.allSatisfy({ $0 < 0x80 }):
            appendMarker(Format.asciiString, count: string.utf8.count, to: &output)
            output += string.utf8
        case .string(let string):
            appendMarker(Format.utf16String, count: string.utf16.count, to: &output)
            for unit in string.utf16 { append(UInt64(unit), size: 2, to: &output) }
        case .uid(let value):
            let size = Format.byteWidth(of: value)
            output.append(Format.uid << 4 | UInt8(size - 1))
            append(value, size: size, to: &output)
        case .array, .dictionary:
            break  // containers are flattened by ObjectList
        }
    }

    /// A marker with `count` in its low nibble, or `0xF` and an integer object after it.
    private static func appendMarker(_ type: UInt8, count: Int, to output: inout [UInt8]) {
        if count < Int(Format.extendedCount) {
            output.append(type << 4 | UInt8(count))
        } else {
            output.append(type << 4 | Format.extendedCount)
            appendInteger(Int64(count), to: &output)
        }
    }

    private static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        let size = value < 0 ? 8 : Format.byteWidth(of: UInt64(value))
        output.append(Format.integer << 4 | UInt8(size.trailingZeroBitCount))
        append(UInt64(bitPattern: value), size: size, to: &output)
    }

    private static func append(_ value: UInt64, size: Int, to output: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
