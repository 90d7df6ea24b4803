import Foundation
import StoreCore

/// Object-ID fetches read into compact lists, for every SQL store (``ObjectIDListFetching``).
extension SQLStore {
    /// The IDs `request` matches, each row's `Z_PK` and `Z_ENT` appended to a compact list as
    /// the row is read: no `ManagedObjectID` per row, no array of them. An unsorted request
    /// without limit or offset gives its IDs in key order, many to a value where the dialect
    /// packs them (PostgreSQL, ``objectIDListInKeyOrder(_:packed:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// let ids = try store.objectIDList(StoreFetchRequest(entityName: "Post", resultType: .managedObjectID))
    /// ```
    package func objectIDList(_ request: StoreFetchRequest) throws -> CompactObjectIDList {
        if request.sortDescriptors.isEmpty, request.fetchLimit == 0, request.fetchOffset == 0,
            let packed = dialect.packedKeys("c.k", entity: "c.e")
        {
            return try objectIDListInKeyOrder(request, packed: packed)
        }
        let query = try compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
        let collector = ObjectIDListCollector(rows: rows)
        try read { connection in
            _ = try connection.collect(query.sql, query.bindings) { row -> Bool? in
                collector.add(key: row.int64(at: 0), entityNumber: row.int64(at: 1))
                return nil
            }
        }
        return collector.builder.list
    }
}

extension SQLStore {
    /// How many IDs one step of ``objectIDListInKeyOrder(_:packed:)`` reads.
    static var keysPerStep: Int { 65_536 }

    /// The IDs of an unsorted request without limit or offset, in key order, for a driver that
    /// pays for every row it reads (PostgreSQL: a message and its decoding per row). Each step
    /// reads the next ``keysPerStep`` keys after the last one read (a keyset on `Z_PK`, through
    /// its index), first as a summary — how many, the first and last key, the entity numbers:
    /// keys without gaps, of one entity, are that range, read as one row — else packed into one
    /// value (``SQLDialect/packedKeys(_:entity:)``). A million IDs cost about 16 rows instead of a
    /// million. The steps run in one consistent read, so the list is what one statement would
    /// have given. Key order also keeps the batches of a table read in key order as ranges of
    /// `Z_PK` (``snapshotQuery(ofRoot:keys:)``), where the order rows were last written in
    /// (PostgreSQL's table order) would scatter them.
    private func objectIDListInKeyOrder(_ request: StoreFetchRequest, packed: String) throws -> CompactObjectIDList {
        let query = try compiler.selectObjects(request, columns: ["t0.Z_PK AS k", "t0.Z_ENT AS e"])
        let after = dialect.parameter(query.bindings.count + 1, declaredType: nil)
        let perStep = Self.keysPerStep
        let step = "(SELECT i.k, i.e FROM (\(query.sql)) AS i WHERE i.k > \(after) ORDER BY i.k LIMIT \(perStep)) AS c"
        let summary = "SELECT COUNT(*), MIN(c.k), MAX(c.k), MIN(c.e), MAX(c.e) FROM " + step
        let keys = "SELECT \(packed) FROM " + step
        let collector = ObjectIDListCollector(rows: rows)
        try readConsistently { connection in
            var last = Int64.min
            while true {
                let bindings = query.bindings + [.integer(last)]
                let found = try connection.collect(summary, bindings) { row in
                    KeySummary(count: row.int64(at: 0), first: row.int64(at: 1), last: row.int64(at: 2),
                               entity: row.isNull(at: 3) ? nil : row.int64(at: 3), lastEntity: row.isNull(at: 4) ? nil : row.int64(at: 4))
                }
                guard let chunk = found.first, chunk.count > 0 else { return }
                if let entity = chunk.entity, entity == chunk.lastEntity, chunk.last &- chunk.first == chunk.count - 1 {
                    for key in chunk.first...chunk.last { collector.add(key: key, entityNumber: entity) }
                } else {
                    switch try connection.scalar(keys, bindings) {
                    case .blob(let bytes)?:
                        guard try unpack(bytes, into: collector) == chunk.count else {
                            throw StoreError(.corrupt, url: url, "the packed keys of \(request.entityName) are not the \(chunk.count) counted")
                        }
                    case let other:
                        throw StoreError(.corrupt, url: url, "the packed keys of \(request.entityName) came back as \(other.map(\.description) ?? "nothing"), not bytes")
                    }
                }
                if chunk.count < Int64(perStep) { return }
                last = chunk.last
            }
        }
        return collector.builder.list
    }

    /// Appends the IDs packed in `bytes` (``SQLDialect/packedKeys(_:entity:)``) to `collector`;
    /// returns how many there were.
    private func unpack(_ bytes: Data, into collector: ObjectIDListCollector) throws -> Int64 {
        let width = 12
        guard bytes.count % width == 0 else {
            throw StoreError(.corrupt, url: url, "packed keys of \(bytes.count) bytes, not a multiple of \(width)")
        }
        bytes.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: bytes.count, by: width) {
                let key = Int64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                let entity = Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: Int32.self))
                collector.add(key: key, entityNumber: Int64(entity))
            }
        }
        return Int64(bytes.count / width)
    }
}

/// One step's keys in brief: how many, the first and last, the least and greatest entity number.
private struct KeySummary: Sendable {
    let count: Int64
    let first: Int64
    let last: Int64
    let entity: Int64?
    let lastEntity: Int64?
}

/// Appends the IDs of a query's rows to a compact list as the driver reads them.
private final class ObjectIDListCollector: @unchecked Sendable {
    // @unchecked: only the query's row callback changes it — one row at a time, while the caller
    // waits for the query (a driver may call it on its own thread) — and the caller reads the
    // list only after the query ended. For the same reason the state skips the runtime's
    // exclusivity checks (one per row otherwise).
    private let rows: RowReader
    @exclusivity(unchecked) private(set) var builder = CompactObjectIDList.Builder()
    @exclusivity(unchecked) private var lastNumber: Int64?
    @exclusivity(unchecked) private var lastPrototype: ManagedObjectID?

    init(rows: RowReader) { self.rows = rows }

    /// Appends the ID of row `key` of entity `number` (a row of an entity the model does not
    /// know is passed over, as ``RowReader/objectID(from:)`` passes it over).
    func add(key: Int64, entityNumber number: Int64) {
        if number != lastNumber {
            // Any key makes an ID that shares the entity-and-store part of every ID of the entity.
            lastPrototype = rows.objectID(entityNumber: number, key: key)
            lastNumber = number
        }
        guard let prototype = lastPrototype else { return }
        builder.append(key: key, sameEntityAndStoreAs: prototype)
    }
}
