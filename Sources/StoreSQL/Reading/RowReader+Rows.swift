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
        let keys = row.keys()
        guard let fields = layout.fields[keys.entityNumber], let entity = fields.entity, let prototype = fields.prototype
        else { return nil }
        let id = ManagedObjectID(primaryKey: keys.primaryKey, sameEntityAndStoreAs: prototype)
        if let known, known.contains(id) { return .partial(objectID: id, version: keys.version, entity: entity) }
        // The values are read into their own buffer first: one snapshot made from it, not a
        // change of the snapshot's (copy-on-write) storage per value.
        var values = entity.makeNullValues()
        try fields.attributes.withUnsafeBufferPointer { try row.readAttributes($0, into: &values) }
        if !fields.externalAttributes.isEmpty, let external {
            for index in fields.externalAttributes {
                if case .data(let stored) = values[index] { values[index] = .data(try external(stored)) }
            }
        }
        for toOne in fields.toOnes where !row.isNull(at: toOne.position) {
            let number = toOne.entityPosition.map { row.isNull(at: $0) ? toOne.destinationNumber : row.int64(at: $0) } ?? toOne.destinationNumber
            if let target = objectID(entityNumber: number, key: row.int64(at: toOne.position)) {
                values[toOne.propertyIndex] = .objectID(target)
            }
        }
        return StoreSnapshot(objectID: id, version: keys.version, entity: entity, values: values)
    }
}
