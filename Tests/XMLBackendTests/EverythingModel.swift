import Foundation
import StoreCore

/// A model with an attribute of every type and a relationship of every kind, built in code.
enum EverythingModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Sample") {
                .attribute("i16", .integer16)
                .attribute("i32", .integer32)
                .attribute("i64", .integer64)
                .attribute("dec", .decimal)
                .attribute("dbl", .double)
                .attribute("flt", .float)
                .attribute("str", .string)
                .attribute("flag", .boolean)
                .attribute("when", .date)
                .attribute("blob", .binaryData)
                .attribute("packed", .transformable(named: "NoSuchTransformer"))
                .attribute("uuid", .uuid)
                .attribute("link", .uri)
                .toOne("owner", destination: "Owner", inverse: "samples")
                .toMany("labels", destination: "Label", inverse: "samples")
                .toMany("steps", destination: "Step", inverse: "sample", ordered: true)
                .toOne("shape", destination: "Shape", inverse: "sample")
            }
            EntityDescription("Owner") {
                .attribute("name", .string)
                .toMany("samples", destination: "Sample", inverse: "owner")
            }
            EntityDescription("Label") {
                .attribute("name", .string)
                .toMany("samples", destination: "Sample", inverse: "labels")
            }
            EntityDescription("Step") {
                .attribute("n", .integer32)
                .toOne("sample", destination: "Sample", inverse: "steps")
            }
            EntityDescription("Shape", isAbstract: true) {
                .attribute("name", .string)
                .toOne("sample", destination: "Sample", inverse: "shape")
            }
            EntityDescription("Circle", parent: "Shape") {
                .attribute("radius", .double)
            }
            EntityDescription("Square", parent: "Shape") {
                .attribute("side", .float)
            }
        }
    }

    /// Every object of a context as text that compares exactly (NaN included), by object URI.
    static func contents(of context: ManagedObjectContext, model: ManagedObjectModel) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for entity in model.entities where !entity.isAbstract {
            var request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.storeRequest.includesSubentities = false
            for object in try context.fetch(request) {
                var values: [String: String] = [:]
                for attribute in entity.attributes {
                    values[attribute.name] = exact(try object.storeValue(forKey: attribute.name))
                }
                for relationship in entity.relationships {
                    let value = try object.value(forKey: relationship.name)
                    switch value {
                    case let array as [ManagedObject]: values[relationship.name] = array.map(\.objectID.description).joined(separator: ",")
                    case let set as Set<ManagedObject>: values[relationship.name] = set.map(\.objectID.description).sorted().joined(separator: ",")
                    case let one as ManagedObject: values[relationship.name] = one.objectID.description
                    default: values[relationship.name] = "nil"
                    }
                }
                result[object.objectID.description] = values
            }
        }
        return result
    }

    private static func exact(_ value: StoreValue) -> String {
        switch value {
        case .double(let number): "double \(number.bitPattern)"
        case .float(let number): "float \(number.bitPattern)"
        case .date(let date): "date \(date.timeIntervalSinceReferenceDate.bitPattern)"
        case .data(let data): "data \(data.count) \(data.hashValue)"
        default: "\(value.kindName) \(value)"
        }
    }
}
