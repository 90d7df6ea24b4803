import Foundation
import StoreCore

/// A compiled dictionary fetch: the SELECT, and how to turn each row into a result dictionary.
///
/// Keys are the names of the fetched properties and expressions (and of the group-by columns);
/// a NULL value is present as ``StoreCore/StoreValue/null``, as in the in-memory
/// `DictionaryFetch`. Values are converted to each expression's result type the same way.
///
/// For example:
///
/// ```swift
/// let query = try compiler.selectDictionaries(request)
/// try connection.query(query.query.sql, query.query.bindings) { row in
///     rows.append(try query.read(row, dialect: dialect) { entity, key in ManagedObjectID(entityName: entity, storeIdentifier: id, primaryKey: key) })
/// }
/// ```
package struct DictionaryQuery: Sendable {
    package var query: CompiledQuery
    package var columns: [Column]

    /// One key of the result dictionaries: where its value is in the row and how to read it.
    package struct Column: Sendable {
        package let name: String
        package let index: Int
        package let reader: ValueReader
        package let resultType: AttributeType?
    }

    /// Turns the current row into a result dictionary.
    package func read<Row: SQLRow>(_ row: Row, dialect: any SQLDialect, objectID: (String, Int64) -> ManagedObjectID) throws -> [String: StoreValue] {
        var result: [String: StoreValue] = Dictionary(minimumCapacity: columns.count)
        for column in columns {
            var value = try column.reader.read(row, at: column.index, dialect: dialect, objectID: objectID)
            if let type = column.resultType { value = type.coerce(value) ?? value }
            result[column.name] = value
        }
        return result
    }
}

/// How a result column is turned back into a store value.
package enum ValueReader: Sendable {
    /// A stored attribute (or its minimum or maximum): exactly as the store reads it.
    case attribute(AttributeType)
    /// A computed value of a known kind (a count is an integer, an average a double…); a
    /// storage class other than expected (an integer sum that overflowed to REAL) is read as it is.
    case kind(SQLKind)
    /// An object's key, as its ID: of `entity`, or of the entity whose number is in column `entityIndex`.
    case object(entity: String?, entityIndex: Int?, entityNames: [Int64: String])

    package func read<Row: SQLRow>(_ row: Row, at index: Int, dialect: any SQLDialect, objectID: (String, Int64) -> ManagedObjectID) throws -> StoreValue {
        switch self {
        case .attribute(let type):
            return try row.storeValue(at: index, as: type)
        case .kind(let kind):
            return Self.decode(row.value(at: index), as: kind, dialect: dialect)
        case .object(let entity, let entityIndex, let entityNames):
            guard case .integer(let key) = row.value(at: index) else { return .null }
            if let entity { return .objectID(objectID(entity, key)) }
            guard let entityIndex, case .integer(let number) = row.value(at: entityIndex), let name = entityNames[number] else { return .null }
            return .objectID(objectID(name, key))
        }
    }

    package static func decode(_ value: SQLValue, as kind: SQLKind, dialect: any SQLDialect) -> StoreValue {
        switch (kind, value) {
        case (_, .null): return .null
        case (.integer, .integer(let number)): return .integer(number)
        case (.real, .integer(let number)): return .double(Double(number))
        case (.boolean, .integer(let number)): return .boolean(number != 0)
        case (.decimal, _): return dialect.decode(value, as: .decimal)
        case (.string, .text(let text)): return .string(text)
        case (.date, .real(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.date, .integer(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.uuid, _): return dialect.decode(value, as: .uuid)
        case (.uri, _): return dialect.decode(value, as: .uri)
        default:
            switch value {
            case .null: return .null
            case .integer(let number): return .integer(number)
            case .real(let number): return .double(number)
            case .text(let text): return .string(text)
            case .blob(let data): return .data(data)
            }
        }
    }
}
