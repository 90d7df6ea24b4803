import Foundation

/// Writes a binary property list (`bplist00`) object by object, straight into a byte buffer,
/// without building a ``PropertyListValue`` tree first — for writers of large, regular files
/// (the binary store's columns).
///
/// Each call writes one object and returns its index; containers take the indexes of objects
/// already written. Scalars go to the buffer at once; containers are kept as lists of indexes
/// and written by ``finish(top:)``, when the number of objects (and so the size of a reference)
/// is known. Equal strings (by their exact Unicode scalars), integers and booleans are written
/// once and shared, as ``BinaryPropertyListWriter`` does; reals, dates, data and containers
/// are not shared. The result reads in Foundation's `PropertyListSerialization` and in
/// ``BinaryPropertyListReader``.
///
/// For example:
///
/// ```swift
/// var builder = BinaryPropertyListBuilder()
/// let keys = [builder.string("name"), builder.string("sizes")]
/// let values = [builder.string("Ada"), builder.array([builder.integer(1), builder.integer(2)])]
/// let data = builder.finish(top: builder.dictionary(keys: keys, values: values))
/// ```
package struct BinaryPropertyListBuilder {
    private typealias Format = BinaryPropertyListFormat

    /// A container waiting to be written: its object index and its references in `references`.
    private struct Container {
        let index: Int
        let type: UInt8
        let start: Int
        /// Entries: elements of an array, key–value pairs of a dictionary.
        let count: Int
    }

    private var output: [UInt8]
    /// By object index; containers' offsets are filled in by ``finish(top:)``.
    private var offsets: [Int] = []
    private var containers: [Container] = []
    private var references: [Int] = []
    private var strings: [String: Int] = [:]
    private var integers: [Int64: Int] = [:]
    private var booleans: [Int?] = [nil, nil]

    /// - Parameter capacity: bytes to reserve for the output, when its size can be guessed.
    package init(capacity: Int = 0) {
        output = Format.magic
        output.reserveCapacity(capacity)
    }

    /// The number of objects written so far.
    package var objectCount: Int { offsets.count }

    // MARK: Scalars

    package mutating func string(_ value: String) -> Int {
        if let position = strings.index(forKey: value) {
            // `String` equality is canonical equivalence; share only identical scalars.
            let (existing, index) = strings[position]
            return existing.utf8.elementsEqual(value.utf8) ? index : writeString(value)
        }
        let index = writeString(value)
        strings[value] = index
        return index
    }

    package mutating func integer(_ value: Int64) -> Int {
        if let index = integers[value] { return index }
        let index = beginObject()
        appendInteger(value)
        integers[value] = index
        return index
    }

    package mutating func boolean(_ value: Bool) -> Int {
        if let index = booleans[value ? 1 : 0] { return index }
        let index = beginObject()
        output.append(value ? Format.boolTrue : Format.boolFalse)
        booleans[value ? 1 : 0] = index
        return index
    }

    /// An 8-byte real.
    package mutating func real(_ value: Double) -> Int {
        let index = beginObject()
        output.append(Format.real << 4 | 3)
        append(value.bitPattern, size: 8)
        return index
    }

    /// A 4-byte real, which reads back as exactly this `Float`.
    package mutating func float(_ value: Float) -> Int {
        let index = beginObject()
        output.append(Format.real << 4 | 2)
        append(UInt64(value.bitPattern), size: 4)
        return index
    }

    package mutating func date(_ value: Date) -> Int {
        let index = beginObject()
        output.append(Format.date)
        append(value.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        return index
    }

    package mutating func data<Bytes: Collection<UInt8>>(_ value: Bytes) -> Int {
        let index = beginObject()
        appendMarker(Format.data, count: value.count)
        output.append(contentsOf: value)
        return index
    }

    package mutating func uid(_ value: UInt64) -> Int {
        let index = beginObject()
        let size = Format.byteWidth(of: value)
        output.append(Format.uid << 4 | UInt8(size - 1))
        append(value, size: size)
        return index
    }

    // MARK: Containers

    /// An array of objects already written.
    package mutating func array<Elements: Collection<Int>>(_ elements: Elements) -> Int {
        let index = beginObject()
        containers.append(Container(index: index, type: Format.array, start: references.count, count: elements.count))
        references.append(contentsOf: elements)
        return index
    }

    /// A dictionary of objects already written; `keys` must be strings, distinct, and as many
    /// as `values`. Keys are written in the order given.
    package mutating func dictionary(keys: [Int], values: [Int]) -> Int {
        let index = beginObject()
        containers.append(Container(index: index, type: Format.dictionary, start: references.count, count: min(keys.count, values.count)))
        references.append(contentsOf: keys.prefix(values.count))
        references.append(contentsOf: values.prefix(keys.count))
        return index
    }

    /// A dictionary from string keys (written sorted, for deterministic output) to objects
    /// already written.
    package mutating func dictionary(_ entries: [String: Int]) -> Int {
        let sorted = entries.sorted { $0.key < $1.key }
        return dictionary(keys: sorted.map { string($0.key) }, values: sorted.map(\.value))
    }

    /// A whole value tree (dictionary keys sorted).
    package mutating func value(_ value: PropertyListValue) -> Int {
        switch value {
        case .string(let string): return self.string(string)
        case .integer(let number): return integer(number)
        case .real(let number): return real(number)
        case .boolean(let flag): return boolean(flag)
        case .date(let date): return self.date(date)
        case .data(let data): return self.data(data)
        case .uid(let number): return uid(number)
        case .array(let elements): return array(elements.map { self.value($0) })
        case .dictionary(let entries):
            // Values in key order, so equal trees give equal bytes.
            let sorted = entries.sorted { $0.key < $1.key }
            let values = sorted.map { self.value($0.value) }
            return dictionary(keys: sorted.map { string($0.key) }, values: values)
        }
    }

    // MARK: Finishing

    /// Writes the containers, the offset table and the trailer, with `top` as the top object.
    ///
    /// - Complexity: O(*n*) in the number of references.
    package consuming func finish(top: Int) -> Data {
        let referenceSize = Format.byteWidth(of: UInt64(max(offsets.count - 1, 0)))
        for container in containers {
            offsets[container.index] = output.count
            appendMarker(container.type, count: container.count)
            let total = container.type == Format.dictionary ? 2 * container.count : container.count
            for reference in references[container.start..<(container.start + total)] {
                append(UInt64(reference), size: referenceSize)
            }
        }
        let offsetTableStart = output.count
        let offsetSize = Format.byteWidth(of: UInt64(offsets.max() ?? 0))
        output.reserveCapacity(output.count + offsets.count * offsetSize + Format.trailerSize)
        for offset in offsets { append(UInt64(offset), size: offsetSize) }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        append(UInt64(offsets.count), size: 8)
        append(UInt64(top), size: 8)
        append(UInt64(offsetTableStart), size: 8)
        return Data(output)
    }

    // MARK: Encoding

    private mutating func beginObject() -> Int {
        offsets.append(output.count)
        return offsets.count - 1
    }

    private mutating func writeString(_ value: String) -> Int {
        let index = beginObject()
        var value = value
        value.makeContiguousUTF8()
        if value.utf8.allSatisfy({ $0 < 0x80 }) {
            appendMarker(Format.asciiString, count: value.utf8.count)
            output.append(contentsOf: value.utf8)
        } else {
            appendMarker(Format.utf16String, count: value.utf16.count)
            for unit in value.utf16 {
                output.append(UInt8(truncatingIfNeeded: unit >> 8))
                output.append(UInt8(truncatingIfNeeded: unit))
            }
        }
        return index
    }

    private mutating func appendMarker(_ type: UInt8, count: Int) {
        if count < Int(Format.extendedCount) {
            output.append(type << 4 | UInt8(count))
        } else {
            output.append(type << 4 | Format.extendedCount)
            appendInteger(Int64(count))
        }
    }

    private mutating func appendInteger(_ value: Int64) {
        let size = value < 0 ? 8 : Format.byteWidth(of: UInt64(value))
        output.append(Format.integer << 4 | UInt8(size.trailingZeroBitCount))
        append(UInt64(bitPattern: value), size: size)
    }

    private mutating func append(_ value: UInt64, size: Int) {
        switch size {
        case 1:
            output.append(UInt8(truncatingIfNeeded: value))
        case 2:
            output.append(UInt8(truncatingIfNeeded: value >> 8))
            output.append(UInt8(truncatingIfNeeded: value))
        default:
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
    }
}
