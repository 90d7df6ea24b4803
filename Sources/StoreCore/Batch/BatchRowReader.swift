import Foundation

/// Reads a batch insert's rows from its source, one at a time, as checked rows of stored values:
/// every value converted to its attribute's type, defaults for the attributes a row leaves out,
/// required values and validation rules enforced. A bad row throws an
/// ``ObjectValidationError`` naming the row (counted from 1).
final class BatchRowReader {
    let entity: EntityDescription
    /// The entity's stored attributes, in row order.
    let attributes: [AttributeDescription]
    private let positions: [String: Int]
    private let defaults: [StoreValue]
    private var source: BatchInsertRequest.Source
    private var rowNumber = 0
    private var finished = false
    /// Converts values the way `setValue(_:forKey:)` does (value transformers included).
    private let converter: ManagedObject

    init(request: BatchInsertRequest, entity: EntityDescription) throws {
        guard !entity.isAbstract else {
            throw ModelError(.abstractEntity, entity: entity.name, "entity \(entity.name) is abstract; batch-insert one of its sub-entities")
        }
        self.entity = entity
        attributes = entity.attributes.filter { !$0.isTransient }
        positions = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        defaults = attributes.map(\.defaultValue)
        source = request.source
        converter = ManagedObject(entity: entity, insertInto: nil)
    }

    func next() throws -> [StoreValue]? {
        guard !finished else { return nil }
        rowNumber += 1
        let place = "row \(rowNumber) of the batch insert into \(entity.name)"
        var row = defaults
        switch source {
        case .objects(let objects):
            guard rowNumber <= objects.count else { return finish() }
            try fill(&row, from: objects[rowNumber - 1], place: place)
        case .dictionaryHandler(let handler):
            var dictionary: [String: Any] = [:]
            if handler(&dictionary) { return finish() }
            try fill(&row, from: dictionary, place: place)
        case .managedObjectHandler(let handler):
            let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
            if handler(object) { return finish() }
            for (position, attribute) in attributes.enumerated() {
                guard let index = entity.propertyIndexes[attribute.name] else { continue }
                row[position] = object.attributeValue(at: index)
            }
        }
        for (position, attribute) in attributes.enumerated() {
            row[position] = try BatchValueCheck.checked(row[position], for: attribute, entity: entity, place: place)
        }
        return row
    }

    private func finish() -> [StoreValue]? {
        finished = true
        source = .objects([])
        return nil
    }

    private func fill(_ row: inout [StoreValue], from dictionary: [String: Any], place: String) throws {
        for (key, value) in dictionary {
            guard let position = positions[key] else {
                let reason = entity.relationshipsByName[key] != nil ? "batch inserts set attributes only, and '\(key)' is a relationship" : "\(entity.name) has no stored attribute '\(key)'"
                throw ObjectValidationError(.wrongType, entity: entity.name, key: key, "\(place): \(reason); nothing was written")
            }
            let attribute = attributes[position]
            let plain = attribute.valueTransformerName == nil ? Self.storeValue(value) : nil
            row[position] = try plain ?? {
                do { return try converter.storeValue(from: value, for: attribute) } catch let error as ObjectValidationError {
                    throw ObjectValidationError(error.code, entity: entity.name, key: key, "\(place): \(error.message); nothing was written")
                }
            }()
        }
    }

    /// The common value types, converted without a dynamic cast to a protocol.
    private static func storeValue(_ value: Any) -> StoreValue? {
        switch value {
        case let string as String: .string(string)
        case let integer as Int: .integer(Int64(integer))
        case let double as Double: .double(double)
        case let value as StoreValue: value
        default: nil
        }
    }
}
