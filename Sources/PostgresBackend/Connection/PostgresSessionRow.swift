#if Postgres
import Foundation
import PostgresNIO
import StoreCore
import StoreSQL

/// One result row, read by column index.
package struct PostgresSessionRow: SQLRow {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRandomAccessRow) { self.row = row }

    package func isNull(at index: Int) -> Bool { row[index].bytes == nil }

    package func int64(at index: Int) -> Int64 {
        if case .integer(let number) = value(at: index) { return number }
        return 0
    }

    package func double(at index: Int) -> Double {
        switch value(at: index) {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: 0
        }
    }

    package func value(at index: Int) -> SQLValue {
        let cell = row[index]
        guard var bytes = cell.bytes else { return .null }
        if cell.format == .text { return .text(String(buffer: bytes)) }
        switch cell.dataType {
        case .int8: return bytes.readInteger(as: Int64.self).map(SQLValue.integer) ?? .null
        case .int4: return bytes.readInteger(as: Int32.self).map { .integer(Int64($0)) } ?? .null
        case .int2: return bytes.readInteger(as: Int16.self).map { .integer(Int64($0)) } ?? .null
        case .bool: return bytes.readInteger(as: UInt8.self).map { .integer($0 == 0 ? 0 : 1) } ?? .null
        case .float8: return bytes.readInteger(as: UInt64.self).map { .real(Double(bitPattern: $0)) } ?? .null
        case .float4: return bytes.readInteger(as: UInt32.self).map { .real(Double(Float(bitPattern: $0))) } ?? .null
        case .numeric: return PostgresNumericText.text(of: bytes).map(SQLValue.text) ?? .blob(Data(bytes.readableBytesView))
        case .bytea: return .blob(Data(bytes.readableBytesView))
        default: return .text(String(buffer: bytes))
        }
    }

    /// - Throws: ``StoreError`` (`corrupt`) for a `NUMERIC` a `Decimal` cannot hold (`NaN`,
    ///   `Infinity`, more digits than it has), rather than reading it as NULL or as 0.
    package func storeValue(at index: Int, as type: AttributeType) throws -> StoreValue {
        let value = value(at: index)
        if case .decimal = type, row[index].dataType == .numeric, value != .null {
            guard case .text(let text) = value, let decimal = Decimal(string: text, locale: nil), !decimal.isNaN else {
                throw StoreError(.corrupt, "result column \(index + 1) holds the NUMERIC \(value), which a decimal attribute cannot hold")
            }
            return .decimal(decimal)
        }
        return PostgresDialect.decode(value, as: type)
    }

    package func readAttributes(_ columns: UnsafeBufferPointer<AttributeColumn>, into values: inout StoreValues) throws {
        for column in columns { values.initialize(try storeValue(at: column.position, as: column.type), at: column.propertyIndex) }
    }
}
#endif
