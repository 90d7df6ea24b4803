import Foundation
import StoreCore

extension RowReader {
    /// The ID of a row whose first two columns are `Z_PK` and `Z_ENT`.
    package func objectID(from row: some SQLRow) -> ManagedObjectID? {
        objectID(entityNumber: row.int64(at: 1), key: row.int64(at: 0))
    }

    /// The snapshot of a row read with `layout`; values of attributes that allow external
    /// storage are read through `external` when it is given. The row of an object `known`
    /// contains comes back holding its ID and version alone.
    package func snapshot(
        from row: some SQLRow, layout: Layout, external: (@Sendable (Data) throws -> Data)?, known: KnownRows? = nil
    ) throws -> StoreSnapshot? {
        let number = row.int64(at: 1)
        guard let id = objectID(entityNumber: number, key: row.int64(at: 0)), let fields = layout.fields[number], let entity = entities[number]
        else { return nil }
        if let known, known.contains(id) { return .partial(objectID: id, version: row.int64(at: 2), entity: entity) }
        // The values go into an array of their own first: one snapshot made from it, not a
        // change of the snapshot's (copy-on-write) storage per value.
        let values = try entity.layout.makeValues { buffer in
            for field in fields {
                switch field.kind {
                case .attribute(let type, let isExternal):
                    var value = try row.storeValue(at: field.position, as: type)
                    if isExternal, let external, case .data(let stored) = value { value = .data(try external(stored)) }
                    buffer[field.propertyIndex] = value
                case .toOne(let destination, let entityPosition):
                    guard !row.isNull(at: field.position) else { continue }
                    let number = entityPosition.map { row.isNull(at: $0) ? destination : row.int64(at: $0) } ?? destination
                    if let target = objectID(entityNumber: number, key: row.int64(at: field.position)) {
                        buffer[field.propertyIndex] = .objectID(target)
                    }
                }
            }
        }
        return StoreSnapshot(objectID: id, version: row.int64(at: 2), entity: entity, values: values)
    }
}
