import Foundation
import StoreCore

/// The rows of a store's `Z_PRIMARYKEY` (entity number, name, super-entity number), checked
/// before anything walks the hierarchy they describe: numbers are positive and distinct, names
/// distinct, every super-entity exists, and no entity is its own ancestor. A file that breaks
/// one of these is corrupt, and says which row is wrong — it never makes a walk loop forever.
///
/// For example:
///
/// ```swift
/// let rows = try PrimaryKeyTable.read(on: connection, url: url)   // throws StoreError(.corrupt)
/// ```
enum PrimaryKeyTable {
    struct Row { let number: Int64; let name: String; let superNumber: Int64 }

    static func read(on connection: SQLiteConnection, url: URL) throws -> [Row] {
        var rows: [Row] = []
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") { row in
            if let name = row.string(at: 1) {
                rows.append(Row(number: row.int64(at: 0), name: name, superNumber: row.isNull(at: 2) ? 0 : row.int64(at: 2)))
            }
        }
        try check(rows, url: url)
        return rows
    }

    static func check(_ rows: [Row], url: URL) throws {
        func corrupt(_ message: String) -> StoreError {
            StoreError(.corrupt, url: url, "Z_PRIMARYKEY is damaged: \(message)")
        }
        var byNumber: [Int64: Row] = [:]
        var names: Set<String> = []
        for row in rows {
            guard row.number >= 1 else { throw corrupt("entity \(row.name) has the number \(row.number); numbers start at 1") }
            guard byNumber.updateValue(row, forKey: row.number) == nil else { throw corrupt("two entities have the number \(row.number)") }
            guard names.insert(row.name).inserted else { throw corrupt("two rows name the entity \(row.name)") }
        }
        for row in rows where row.superNumber != 0 {
            guard byNumber[row.superNumber] != nil else {
                throw corrupt("entity \(row.name) names the super-entity number \(row.superNumber), which no entity has")
            }
            var seen: Set<Int64> = [row.number]
            var current = row
            while current.superNumber != 0, let parent = byNumber[current.superNumber] {
                guard seen.insert(parent.number).inserted else {
                    throw corrupt("entity \(row.name) is its own ancestor (through \(parent.name))")
                }
                current = parent
            }
        }
    }
}
