import Foundation
import StoreCore

/// A model with an attribute of every type and a relationship of every kind, and a graph of
/// objects holding the awkward values (NULLs, empty strings, large binary, Unicode, long
/// decimals, extreme dates, integers at their limits), for round trips between store types.
///
/// Objects are told apart by their `name`, so two stores can be compared object by object
/// whatever IDs they gave the objects:
///
/// ```swift
/// try EveryTypeGraph.insert(into: context)
/// XCTAssertEqual(try EveryTypeGraph.contents(of: store), EveryTypeGraph.expectedContents)
/// ```
public enum EveryTypeGraph {
    public static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Thing", uniquenessConstraints: [["name"]]) {
                .attribute("name", .string, optional: false, defaultValue: "")
                .attribute("int16", .integer16)
                .attribute("int32", .integer32)
                .attribute("int64", .integer64)
                .attribute("decimal", .decimal)
                .attribute("double", .double)
                .attribute("float", .float)
                .attribute("string", .string)
                .attribute("flag", .boolean)
                .attribute("date", .date)
                .attribute("blob", .binaryData)
                .attribute("uuid", .uuid)
                .attribute("uri", .uri)
                .toOne("partner", destination: "Thing", inverse: "partner")
                .toOne("parent", destination: "Thing", inverse: "children")
                .toMany("children", destination: "Thing", inverse: "parent")
                .toMany("sequence", destination: "Thing", inverse: "inSequence", ordered: true)
                .toOne("inSequence", destination: "Thing", inverse: "sequence")
                .toMany("friends", destination: "Thing", inverse: "friendOf")
                .toMany("friendOf", destination: "Thing", inverse: "friends")
            }
            EntityDescription("SpecialThing", parent: "Thing") {
                .attribute("note", .string)
            }
        }
    }

    /// The attribute values of each object, by name; keys left out are `nil`.
    public static let attributes: [String: [String: StoreValue]] = [
        "nulls": [:],
        "empty": ["string": .string(""), "blob": .data(Data())],
        "limits-low": [
            "int16": .integer(Int64(Int16.min)), "int32": .integer(Int64(Int32.min)), "int64": .integer(.min),
            "double": .double(-.greatestFiniteMagnitude), "float": .float(-.greatestFiniteMagnitude),
            "date": .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000)), "flag": .boolean(false),
            "decimal": .decimal(Decimal(string: "-99999999999999999999.99999999999999999")!),
        ],
        "limits-high": [
            "int16": .integer(Int64(Int16.max)), "int32": .integer(Int64(Int32.max)), "int64": .integer(.max),
            "double": .double(.greatestFiniteMagnitude), "float": .float(.greatestFiniteMagnitude),
            "date": .date(Date(timeIntervalSinceReferenceDate: 252_423_993_599.875)), "flag": .boolean(true),
            "decimal": .decimal(Decimal(string: "12345678901234567890.123456789")!),
        ],
        "fractions": [
            "double": .double(0.1), "float": .float(0.1), "decimal": .decimal(Decimal(string: "0.000000000000000001")!),
            "date": .date(Date(timeIntervalSinceReferenceDate: 0.000_001)), "int64": .integer(0),
            "uuid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            "uri": .uri(URL(string: "https://example.org/a%20b?q=1#frag")!),
        ],
        "unicode": [
            "string": .string("Zürich · 東京 · 🚀👩‍👩‍👧 · e\u{301} · <&>\"' · tab\tnewline\nend"),
            "blob": .data(Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })),
            "uri": .uri(URL(fileURLWithPath: "/tmp/ünïcode path/file.txt")),
        ],
        "special": ["string": .string("sub-entity")],
    ]

    /// Inserts the graph: every relationship kind, among the objects above.
    public static func insert(into context: ManagedObjectContext) throws {
        var objects: [String: ManagedObject] = [:]
        for (name, values) in attributes.sorted(by: { $0.key < $1.key }) {
            let object = try context.insertNewObject(forEntityName: name == "special" ? "SpecialThing" : "Thing")
            try object.setValue(name, forKey: "name")
            for (key, value) in values { try object.setStoreValue(value, forKey: key) }
            if name == "special" { try object.setValue("a note", forKey: "note") }
            objects[name] = object
        }
        func object(_ name: String) throws -> ManagedObject {
            guard let object = objects[name] else { throw StoreError(.objectNotFound, "no object \(name)") }
            return object
        }
        try object("limits-low").setValue(try object("limits-high"), forKey: "partner")
        try object("nulls").setValue(Set([try object("empty"), try object("special")]), forKey: "children")
        try object("unicode").setValue([try object("special"), try object("nulls"), try object("fractions"), try object("empty")], forKey: "sequence")
        try object("fractions").setValue(Set([try object("unicode"), try object("limits-low"), try object("fractions")]), forKey: "friends")
        try object("special").setValue(Set([try object("unicode")]), forKey: "friends")
    }

    /// Everything a store holds, object by object (keyed by name), with values spelled out
    /// exactly, references as names, and unordered to-many relationships sorted.
    public static func contents(of context: ManagedObjectContext) throws -> [String: [String: String]] {
        func name(_ object: ManagedObject) throws -> String { try object.value(forKey: "name") as? String ?? "?" }
        var result: [String: [String: String]] = [:]
        for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Thing")) {
            var fields: [String: String] = ["entity": object.entity.name]
            for property in object.entity.properties {
                switch try object.value(forKey: property.name) {
                case let target as ManagedObject: fields[property.name] = try name(target)
                case let targets as [ManagedObject]: fields[property.name] = try targets.map(name).joined(separator: ",")
                case let targets as Set<ManagedObject>: fields[property.name] = try targets.map(name).sorted().joined(separator: ",")
                default:
                    let stored = try object.storeValue(forKey: property.name)
                    if !stored.isNull { fields[property.name] = exactly(stored) }
                }
            }
            result[try name(object)] = fields
        }
        return result
    }

    /// A value's kind and every bit of it, as text.
    public static func exactly(_ value: StoreValue) -> String {
        switch value {
        case .date(let date): "date \(date.timeIntervalSinceReferenceDate)"
        case .decimal(let number): "decimal \(number.description)"
        case .double(let number): "double \(number)"
        case .float(let number): "float \(number)"
        case .data(let data): "data \(data.count) bytes, checksum \(data.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 })"
        default: "\(value.kindName) \(value)"
        }
    }
}
