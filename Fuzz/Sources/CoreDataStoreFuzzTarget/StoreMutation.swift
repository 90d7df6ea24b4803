import CSQLite
import Foundation

/// Edits a store file with SQL, driven by the fuzzer's bytes: each edit is an operation byte and
/// its operands. SQLite refusing an edit (a constraint, a missing table) just skips it — the point
/// is the file the inspector gets, not the edit.
enum StoreMutation {
    static func apply(_ bytes: ArraySlice<UInt8>, toStoreAt url: URL) {
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else { return }
        var input = Operands(bytes: bytes)
        let tables = strings(handle, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        var edits = 0
        while let operation = input.next(), edits < 16 {
            edits += 1
            switch operation % 6 {
            case 0:  // a Z_PRIMARYKEY cell: entity number, name, parent or key counter
                let column = ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"][Int(input.next() ?? 0) % 4]
                let row = Int(input.next() ?? 0)
                let value: SQLValue = column == "Z_NAME" ? .text(input.text()) : .integer(Int64(Int8(bitPattern: input.next() ?? 0)))
                run(handle, "UPDATE Z_PRIMARYKEY SET \(column) = ? WHERE rowid = (SELECT rowid FROM Z_PRIMARYKEY LIMIT 1 OFFSET \(row % 16))", [value])
            case 1:  // the metadata property list
                run(handle, "UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(input.blob())])
            case 2:  // the model cache
                run(handle, "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", [.blob(input.blob())])
            case 3:  // a cell of any table
                guard !tables.isEmpty else { continue }
                let table = tables[Int(input.next() ?? 0) % tables.count]
                let columns = strings(handle, "SELECT name FROM pragma_table_info('\(table)')")
                guard !columns.isEmpty else { continue }
                let column = columns[Int(input.next() ?? 0) % columns.count]
                run(handle, "UPDATE \"\(table)\" SET \"\(column)\" = ? WHERE rowid = (SELECT rowid FROM \"\(table)\" LIMIT 1 OFFSET \(Int(input.next() ?? 0) % 8))", [input.value()])
            case 4:  // a column or a table gone
                guard !tables.isEmpty else { continue }
                let table = tables[Int(input.next() ?? 0) % tables.count]
                if (input.next() ?? 0) % 4 == 0 {
                    run(handle, "DROP TABLE \"\(table)\"", [])
                } else {
                    let columns = strings(handle, "SELECT name FROM pragma_table_info('\(table)')")
                    guard !columns.isEmpty else { continue }
                    run(handle, "ALTER TABLE \"\(table)\" DROP COLUMN \"\(columns[Int(input.next() ?? 0) % columns.count])\"", [])
                }
            default:  // a new Z_PRIMARYKEY row
                run(handle, "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)", [
                    .integer(Int64(Int8(bitPattern: input.next() ?? 0))), .text(input.text()),
                    .integer(Int64(Int8(bitPattern: input.next() ?? 0))), .integer(Int64(input.next() ?? 0)),
                ])
            }
        }
    }

    enum SQLValue {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])
    }

    /// The fuzzer's bytes, read front to back.
    struct Operands {
        var bytes: ArraySlice<UInt8>

        mutating func next() -> UInt8? { bytes.popFirst() }

        /// A length byte, then that many bytes (or what is left).
        mutating func blob() -> [UInt8] {
            let count = Int(next() ?? 0)
            let taken = Array(bytes.prefix(count))
            bytes = bytes.dropFirst(count)
            return taken
        }

        mutating func text() -> String { String(decoding: blob().prefix(24), as: UTF8.self) }

        mutating func value() -> SQLValue {
            switch (next() ?? 0) % 5 {
            case 0: .null
            case 1: .integer(Int64(Int8(bitPattern: next() ?? 0)) * Int64(next() ?? 1))
            case 2: .real(Double(Int8(bitPattern: next() ?? 0)) / 3)
            case 3: .text(text())
            default: .blob(blob())
            }
        }
    }

    private static func run(_ handle: OpaquePointer, _ sql: String, _ values: [SQLValue]) {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, position)
            case .integer(let number): sqlite3_bind_int64(statement, position, number)
            case .real(let number): sqlite3_bind_double(statement, position, number)
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, stowage_sqlite_transient())
            case .blob(let blob): _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), stowage_sqlite_transient()) }
            }
        }
        _ = sqlite3_step(statement)
    }

    private static func strings(_ handle: OpaquePointer, _ sql: String) -> [String] {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        var result: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            if let text = sqlite3_column_text(statement, 0) { result.append(String(cString: text)) }
        }
        return result
    }
}
