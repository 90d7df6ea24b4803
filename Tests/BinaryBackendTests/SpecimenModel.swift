import BinaryBackend
import Foundation
import StoreCore

/// A model with every attribute type and every relationship kind: specimens with a parent
/// (to-one) and children (to-many), labels (many-to-many), ordered pages, and shapes of an
/// abstract entity's sub-entities.
enum SpecimenModel {
    static let attributeNames = [
        "i16", "i32", "i64", "decimal", "double", "float", "text", "flag", "when", "blob", "uuid", "link", "reference",
    ]

    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Specimen") {
                .attribute("i16", .integer16)
                .attribute("i32", .integer32)
                .attribute("i64", .integer64)
                .attribute("decimal", .decimal)
                .attribute("double", .double)
                .attribute("float", .float)
                .attribute("text", .string)
                .attribute("flag", .boolean)
                .attribute("when", .date)
                .attribute("blob", .binaryData)
                .attribute("uuid", .uuid)
                .attribute("link", .uri)
                .attribute("reference", .objectID)
                .toOne("parent", destination: "Specimen", inverse: "children")
                .toMany("children", destination: "Specimen", inverse: "parent")
                .toMany("labels", destination: "Label", inverse: "specimens")
                .toMany("pages", destination: "Page", inverse: "specimen", ordered: true)
                .toMany("shapes", destination: "Shape", inverse: "owner")
            }
            EntityDescription("Label") {
                .attribute("name", .string)
                .toMany("specimens", destination: "Specimen", inverse: "labels")
            }
            EntityDescription("Page") {
                .attribute("number", .integer32)
                .toOne("specimen", destination: "Specimen", inverse: "pages")
            }
            EntityDescription("Shape", isAbstract: true) {
                .attribute("name", .string)
                .toOne("owner", destination: "Specimen", inverse: "shapes")
            }
            EntityDescription("Circle", parent: "Shape") {
                .attribute("radius", .double)
            }
            EntityDescription("Square", parent: "Shape") {
                .attribute("side", .integer64)
            }
        }
    }

    /// Attribute values at the edges of every type, one row per specimen; `.null` leaves the
    /// attribute `nil`.
    static let edgeRows: [[String: StoreValue]] = {
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        return [
            [
                "i16": .integer(Int64(Int16.max)), "i32": .integer(Int64(Int32.min)), "i64": .integer(.max),
                "decimal": .decimal(Decimal(string: "3.14159265358979323846264338327950288") ?? 0),
                "double": .double(.nan), "float": .float(.pi), "text": "", "flag": false,
                "when": .date(Date(timeIntervalSinceReferenceDate: -63_114_076_800.000_001)),
                "blob": .data(Data()), "uuid": .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
                "link": .uri(URL(string: "https://example.com/p?q=%20r#s") ?? URL(fileURLWithPath: "/")),
            ],
            [
                "i16": .integer(Int64(Int16.min)), "i32": .integer(Int64(Int32.max)), "i64": .integer(.min),
                "decimal": .decimal(Decimal.greatestFiniteMagnitude), "double": .double(.infinity), "float": .float(-.infinity),
                "text": .string("nul\u{0}inside \u{1F600} \u{10FFFF} 漢字"), "flag": true,
                "when": .date(Date(timeIntervalSinceReferenceDate: 1e12 + 0.5)), "blob": .data(big),
                "uuid": .uuid(UUID(uuid: (255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 255))),
                "link": .uri(URL(fileURLWithPath: "/tmp/a file.txt")),
            ],
            [
                "i64": .integer(0), "decimal": .decimal(-Decimal.leastNonzeroMagnitude), "double": .double(-.infinity),
                "float": .float(.nan), "text": .string(nfc), "when": .date(Date.distantFuture), "blob": .data(Data([0])),
            ],
            [
                "i64": .integer(-1), "decimal": .decimal(Decimal(string: "-0.000001") ?? 0), "double": .double(-0.0),
                "float": .float(Float.leastNonzeroMagnitude), "text": .string(nfd), "when": .date(Date.distantPast),
            ],
            [
                "decimal": .decimal(Decimal.nan), "double": .double(Double.leastNonzeroMagnitude), "float": .float(Float.greatestFiniteMagnitude),
                "text": .string(String(repeating: "long ASCII text ", count: 100)),
                "when": .date(Date(timeIntervalSinceReferenceDate: 0.1)),
            ],
            [:],
        ]
    }()
}

/// Equality of store values with NaNs equal to themselves (and decimals' NaN to theirs), so
/// files can be compared exactly: doubles and floats by their bits.
func exactlyEqual(_ a: StoreValue, _ b: StoreValue) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
    case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
    case (.decimal(let x), .decimal(let y)): x.isNaN ? y.isNaN : x == y && x.description == y.description
    case (.string(let x), .string(let y)): x.unicodeScalars.elementsEqual(y.unicodeScalars)
    case (.date(let x), .date(let y)): x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
    default: a == b
    }
}

/// What differs between the objects of two files, object by object (by key), values compared
/// exactly; `nil` attributes and empty relationships count as absent. Empty when they are the same.
func differences(_ left: [AtomicStoreObject], _ right: [AtomicStoreObject]) -> [String] {
    var problems: [String] = []
    let rightByKey = Dictionary(right.map { ($0.primaryKey, $0) }, uniquingKeysWith: { first, _ in first })
    if left.count != right.count { problems.append("\(left.count) objects against \(right.count)") }
    for object in left {
        guard let other = rightByKey[object.primaryKey] else {
            problems.append("object \(object.primaryKey) is missing")
            continue
        }
        if object.entityName != other.entityName { problems.append("object \(object.primaryKey): entity \(object.entityName) ≠ \(other.entityName)") }
        let attributes = object.attributes.filter { !$0.value.isNull }
        let otherAttributes = other.attributes.filter { !$0.value.isNull }
        if Set(attributes.keys) != Set(otherAttributes.keys) {
            problems.append("object \(object.primaryKey): attributes \(attributes.keys.sorted()) ≠ \(otherAttributes.keys.sorted())")
        }
        for (key, value) in attributes {
            if let otherValue = otherAttributes[key], !exactlyEqual(value, otherValue) {
                problems.append("object \(object.primaryKey).\(key): \(value) ≠ \(otherValue)")
            }
        }
        if object.relationships.filter({ !$0.value.isEmpty }) != other.relationships.filter({ !$0.value.isEmpty }) {
            problems.append("object \(object.primaryKey): relationships \(object.relationships) ≠ \(other.relationships)")
        }
    }
    return problems
}
