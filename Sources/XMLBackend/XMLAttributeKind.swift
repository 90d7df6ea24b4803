import StoreCore

/// The `type` of an `<attribute>` element: Core Data's names (`int16` … `transformable`) plus the
/// ones Stowage adds for types Core Data's XML store has no name for (`uuid`, `uri`, `objectid`).
///
/// For example:
///
/// ```swift
/// XMLAttributeKind(.integer32).name      // "int32"
/// XMLAttributeKind(name: bytes)          // .double for the bytes of "double"
/// ```
enum XMLAttributeKind: CaseIterable {
    case int16, int32, int64, decimal, double, float, string, bool, date, binary, transformable, uuid, uri, objectID

    /// The name written in the file.
    var name: String {
        switch self {
        case .int16: "int16"
        case .int32: "int32"
        case .int64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .bool: "bool"
        case .date: "date"
        case .binary: "bin"
        case .transformable: "transformable"
        case .uuid: "uuid"
        case .uri: "uri"
        case .objectID: "objectid"
        }
    }

    /// The kind written for a model type.
    init(_ type: AttributeType) {
        switch type {
        case .integer16: self = .int16
        case .integer32: self = .int32
        case .integer64: self = .int64
        case .decimal: self = .decimal
        case .double: self = .double
        case .float: self = .float
        case .string: self = .string
        case .boolean: self = .bool
        case .date: self = .date
        case .binaryData: self = .binary
        case .transformable: self = .transformable
        case .uuid: self = .uuid
        case .uri: self = .uri
        case .objectID: self = .objectID
        // Never written: undefined attributes are transient (the model refuses others), and a
        // composite's elements are written as attributes of their own (`location.latitude`).
        case .undefined, .composite: self = .binary
        }
    }

    private static let namesAsBytes: [(bytes: [UInt8], kind: XMLAttributeKind)] = allCases.map { (Array($0.name.utf8), $0) }

    /// The name written in the file, as bytes.
    var nameBytes: [UInt8] { Self.namesAsBytes.first { $0.kind == self }?.bytes ?? [] }

    /// The kind a file's `type` names, or `nil` for a name this format does not have.
    init?(name: UnsafeBufferPointer<UInt8>) {
        for entry in Self.namesAsBytes where XMLBytes.equal(entry.bytes, name) {
            self = entry.kind
            return
        }
        return nil
    }

    private var family: Int {
        switch self {
        case .int16, .int32, .int64, .decimal, .double, .float, .bool: 0
        case .string, .uuid, .uri, .objectID: 1
        case .date: 2
        case .binary, .transformable: 3
        }
    }

    /// Whether a value the file types as `self` can be read as the model's `kind`: numbers as
    /// numbers, text as text (a UUID kept in a string attribute, say), dates as dates, data as data.
    func canBeRead(as kind: XMLAttributeKind) -> Bool { family == kind.family }
}
