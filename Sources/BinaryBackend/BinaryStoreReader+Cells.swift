import Foundation
import StoreCore

/// Decoding one cell of a column: an attribute value or a relationship's keys.
extension BinaryStoreReader {
    /// The value of an attribute cell, `nil` for the empty array that stands for `nil`.
    mutating func value(ofCell cell: Int, type: ColumnType) throws(PropertyListError) -> StoreValue? {
        if try table.isEmptyArray(cell) { return nil }
        switch type {
        case .integer: return .integer(try table.integer(ofObject: cell))
        case .double: return .double(try table.real(ofObject: cell))
        case .float: return .float(try float(cell))
        case .boolean: return .boolean(try table.boolean(ofObject: cell))
        case .date: return .date(try table.date(ofObject: cell))
        case .string: return .string(try string(cell))
        case .decimal, .data, .uuid, .uri, .objectID: return try shared(cell, type: type)
        case .mixed:
            let pair = try table.array(ofObject: cell)
            guard pair.count == 2 else {
                throw PropertyListError(.corrupt, "a mixed-type cell holds \(pair.count) objects, not a type and a value")
            }
            let typeName = try string(try table.element(0, of: pair))
            guard let inner = ColumnType(rawValue: typeName), inner != .mixed else {
                throw PropertyListError(.corrupt, "a mixed-type cell has the unknown type \"\(typeName)\"")
            }
            return try value(ofCell: try table.element(1, of: pair), type: inner)
        }
    }

    /// The keys of a relationship cell: one for an integer, those of an array, none for `[]`.
    mutating func targets(ofCell cell: Int) throws(PropertyListError) -> [Int64] {
        switch try table.kind(ofObject: cell) {
        case .integer:
            return [try table.integer(ofObject: cell)]
        case .array:
            let elements = try table.array(ofObject: cell)
            try spend(elements.count)
            var keys: [Int64] = []
            keys.reserveCapacity(elements.count)
            for position in 0..<elements.count {
                keys.append(try table.integer(ofObject: try table.element(position, of: elements)))
            }
            return keys
        default:
            throw PropertyListError(.corrupt, "a relationship cell is neither a key nor an array of keys")
        }
    }

    /// A 4-byte real, or an 8-byte one whose value a `Float` holds exactly (as other writers may write it).
    private func float(_ cell: Int) throws(PropertyListError) -> Float {
        if try table.kind(ofObject: cell) == .real32 { return try table.float32(ofObject: cell) }
        let number = try table.real(ofObject: cell)
        let float = Float(number)
        guard Double(float) == number || number.isNaN else {
            throw PropertyListError(.corrupt, "\(number) is not a Float")
        }
        return float
    }

    /// A string object, decoded once and shared by every cell that refers to it.
    private mutating func string(_ index: Int) throws(PropertyListError) -> String {
        if strings.isEmpty { strings = Array(repeating: nil, count: table.objectCount) }
        if let string = strings[index] { return string }
        let string = try table.string(ofObject: index)
        try spend(string.utf8.count)
        strings[index] = string
        return string
    }

    /// A value made from a string or data object, made once and shared by every cell of the
    /// same type that refers to it.
    private mutating func shared(_ index: Int, type: ColumnType) throws(PropertyListError) -> StoreValue {
        if values.isEmpty { values = Array(repeating: nil, count: table.objectCount) }
        if let cached = values[index], cached.type == type { return cached.value }
        let value: StoreValue
        switch type {
        case .data:
            let bytes = try table.dataBytes(ofObject: index)
            try spend(bytes.count)
            value = .data(Data(bytes))
        case .uuid:
            let bytes = try table.dataBytes(ofObject: index)
            guard bytes.count == 16 else { throw PropertyListError(.corrupt, "a UUID of \(bytes.count) bytes, not 16") }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
            value = .uuid(UUID(uuid: uuid))
        case .decimal:
            value = .decimal(try Self.decimal(try string(index)))
        case .uri:
            let text = try string(index)
            guard let url = URL(string: text) else { throw PropertyListError(.corrupt, "\"\(text.prefix(100))\" is not a URI") }
            value = .uri(url)
        case .objectID:
            let text = try string(index)
            guard let url = URL(string: text), let id = ManagedObjectID(uriRepresentation: url) else {
                throw PropertyListError(.corrupt, "\"\(text.prefix(100))\" is not an object ID URI")
            }
            value = .objectID(id)
        default:
            throw PropertyListError(.corrupt, "a \(type.rawValue) value is not made from a string or data")
        }
        // Charged again when another type claims the object, so no sharing escapes the budget.
        if values[index] != nil { try spend(1) }
        values[index] = SharedValue(type: type, value: value)
        return value
    }

    /// A decimal written as its exact digits: `-`, digits, an optional fraction and exponent; or `NaN`.
    private static func decimal(_ text: String) throws(PropertyListError) -> Decimal {
        if text == "NaN" { return .nan }
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let digits = bytes.prefix { (0x30...0x39).contains($0) }
        var rest = bytes.dropFirst(digits.count)
        if rest.first == UInt8(ascii: ".") {
            let fraction = rest.dropFirst().prefix { (0x30...0x39).contains($0) }
            rest = rest.dropFirst(1 + fraction.count)
        }
        if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "-") || rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
            let exponent = rest.prefix { (0x30...0x39).contains($0) }
            rest = exponent.isEmpty ? bytes : rest.dropFirst(exponent.count)
        }
        guard !digits.isEmpty, rest.isEmpty, text.utf8.count <= 200, let decimal = Decimal(string: text, locale: nil) else {
            throw PropertyListError(.corrupt, "\"\(text.prefix(100))\" is not a decimal number")
        }
        return decimal
    }

    private mutating func spend(_ count: Int) throws(PropertyListError) {
        budget -= count
        guard budget >= 0 else {
            throw PropertyListError(.tooManyValues, "the file describes more values than a file of its size can hold (shared references?)")
        }
    }
}
