import Foundation
import StoreCore
import StoreSQL

/// Reading SQLite rows: see ``StoreSQL/RowReader``.
extension RowReader {
    /// The ID of the current row (its first two columns are `Z_PK` and `Z_ENT`).
    func objectID(from row: SQLiteStatement) -> ManagedObjectID? {
        objectID(entityNumber: row.int64(at: 1), key: row.int64(at: 0))
    }

    /// The snapshot of the current row, read with `layout`; external binary values are read
    /// through `external`.
    func snapshot(from row: SQLiteStatement, layout: Layout, external: ExternalBinaryStorage?) throws -> StoreSnapshot? {
        let number = row.int64(at: 1)
        guard let id = objectID(entityNumber: number, key: row.int64(at: 0)), let fields = layout.fields[number], let entity = entities[number]
        else { return nil }
        var snapshot = StoreSnapshot(objectID: id, version: row.int64(at: 2), entity: entity)
        for field in fields {
            switch field.kind {
            case .attribute(let type, let isExternal):
                var value = SQLiteValueCoder.read(row, at: field.position, as: type)
                if isExternal, case .data(let stored) = value { value = .data(try ExternalBinaryStorage.read(stored, from: external)) }
                snapshot.setValue(value, at: field.propertyIndex)
            case .toOne(let destination, let entityPosition):
                guard !row.isNull(at: field.position) else { continue }
                let number = entityPosition.map { row.isNull(at: $0) ? destination : row.int64(at: $0) } ?? destination
                if let target = objectID(entityNumber: number, key: row.int64(at: field.position)) {
                    snapshot.setValue(.objectID(target), at: field.propertyIndex)
                }
            }
        }
        return snapshot
    }
}
