import Foundation

/// Reads a batch insert's rows from its source, one at a time, as checked rows of stored values:
/// every value converted to its attribute's type, defaults for the attributes a row leaves out,
/// required values and validation rules enforced. A bad row throws an
/// ``ObjectValidationError`` naming the row (counted from 1).
///
/// It is called once a row, for requests of millions of rows, so the common value types are read
/// with one cast chosen by the attribute's type, and a row's storage is reused once the store
/// has written it.
final class BatchRowReader {
    let entity: EntityDescription
    /// The entity's stored attributes, in row order.
    let attributes: [AttributeDescription]
    private let positions: [String: Int]
    private let defaults: [StoreValue]
    /// Per attribute, the kind of value that is already right for it (no conversion, no rules);
    /// `nil` where every value is checked.
    private let settled: [SettledKind?]
    private var source: BatchInsertRequest.Source
    private var rowNumber = 0
    private var finished = false
    /// The row handed out last; refilled in place when the store has let go of it.
    private var row: [StoreValue]
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
        settled = attributes.map { $0.validationRules.isEmpty ? SettledKind($0.attributeType) : nil }
        row = defaults
        source = request.source
        converter = ManagedObject(entity: entity, insertInto: nil)
    }

    func next() throws -> [StoreValue]? {
        guard !finished else { return nil }
        rowNumber += 1
        // Taken out of `self` so it is filled without an access check per value, and in place
        // when the store has let go of the previous row.
        var row = self.row
        self.row = []
        defer { self.row = row }
        switch source {
        case .objects(let objects):
            guard rowNumber <= objects.count else { return finish() }
            try fill(&row, from: objects[rowNumber - 1])
        case .dictionaryHandler(let handler):
            var dictionary: [String: Any] = [:]
            if handler(&dictionary) { return finish() }
            try fill(&row, from: dictionary)
        case .managedObjectHandler(let handler):
            let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
            if handler(object) { return finish() }
            for (position, attribute) in attributes.enumerated() {
                row[position] = entity.propertyIndexes[attribute.name].map(object.attributeValue(at:)) ?? defaults[position]
            }
        }
        for position in row.indices {
            if let kind = settled[position], kind.holds(row[position]) { continue }
            row[position] = try BatchValueCheck.checked(row[position], for: attributes[position], entity: entity, place: self.place)
        }
        return row
    }

    /// The row being read, as error messages name it.
    private var place: String { "row \(rowNumber) of the batch insert into \(entity.name)" }

    private func finish() -> [StoreValue]? {
        finished = true
        source = .objects([])
        return nil
    }

    /// Sets the row's values from a dictionary, and defaults for the attributes it leaves out.
    private func fill(_ row: inout [StoreValue], from dictionary: [String: Any]) throws {
        // Keys are distinct and an unknown one throws, so a dictionary as large as the row sets
        // every value; a smaller one starts from the defaults.
        if dictionary.count < row.count {
            for position in row.indices { row[position] = defaults[position] }
        }
        if dictionary.count * 2 >= row.count {
            // Most attributes given: look each one up (one hash a value, no copy of the keys)…
            var found = 0
            for position in row.indices {
                guard let value = dictionary[attributes[position].name] else { continue }
                found += 1
                row[position] = try converted(value, at: position)
            }
            if found < dictionary.count, let key = dictionary.keys.first(where: { positions[$0] == nil }) { throw unknownKey(key) }
        } else {
            // …few given: place each key.
            for (key, value) in dictionary {
                guard let position = positions[key] else { throw unknownKey(key) }
                row[position] = try converted(value, at: position)
            }
        }
    }

    /// A row's value for the attribute at `position`, converted to its type.
    private func converted(_ value: Any, at position: Int) throws -> StoreValue {
        let attribute = attributes[position]
        if let plain = Self.storeValue(value, as: attribute.attributeType) { return plain }
        do {
            return try converter.storeValue(from: value, for: attribute)
        } catch let error as ObjectValidationError {
            throw ObjectValidationError(error.code, entity: entity.name, key: attribute.name, "\(place): \(error.message); nothing was written")
        }
    }

    private func unknownKey(_ key: String) -> ObjectValidationError {
        let reason = entity.relationshipsByName[key] != nil ? "batch inserts set attributes only, and '\(key)' is a relationship" : "\(entity.name) has no stored attribute '\(key)'"
        return ObjectValidationError(.wrongType, entity: entity.name, key: key, "\(place): \(reason); nothing was written")
    }

    /// A value of the type an attribute of `type` usually gets, converted with one cast to that
    /// type; `nil` for anything else (the general conversion takes it).
    private static func storeValue(_ value: Any, as type: AttributeType) -> StoreValue? {
        switch type {
        case .string: (value as? String).map(StoreValue.string)
        case .integer16, .integer32, .integer64: (value as? Int).map { .integer(Int64($0)) }
        case .double: (value as? Double).map(StoreValue.double)
        case .date: (value as? Date).map(StoreValue.date)
        case .boolean: (value as? Bool).map(StoreValue.boolean)
        default: nil
        }
    }
}

/// The kind of stored value an attribute without validation rules takes as it is.
private enum SettledKind {
    case string, integer, double, date, boolean

    init?(_ type: AttributeType) {
        switch type {
        case .string: self = .string
        case .integer64: self = .integer
        case .double: self = .double
        case .date: self = .date
        case .boolean: self = .boolean
        default: return nil
        }
    }

    func holds(_ value: StoreValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.integer, .integer), (.double, .double), (.date, .date), (.boolean, .boolean): true
        default: false
        }
    }
}
