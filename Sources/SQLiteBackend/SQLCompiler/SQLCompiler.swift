import StoreCore

/// A SELECT with its bound values.
struct CompiledQuery: Sendable {
    var sql: String
    var bindings: [SQLValue]
}

/// Translates fetch requests into SQL for one schema. (Being written: only entity filters,
/// sorts on attributes, limits and offsets compile so far.)
struct SQLCompiler: Sendable {
    let schema: SQLiteSchema
    let model: ManagedObjectModel

    /// `SELECT <columns> FROM <root table> t0 … WHERE <entity filter> AND <predicate>
    /// ORDER BY … LIMIT … OFFSET …`; `columns` are SQL expressions over the alias `t0`.
    func selectObjects(_ request: StoreFetchRequest, columns: [String]) throws -> CompiledQuery {
        let table = try schema.table(for: request.entityName)
        guard request.predicate == nil else {
            throw FetchError(.unsupported, "predicates do not compile to SQL yet")
        }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(table.table) t0"
        if table.sharesTable {
            let numbers = request.includesSubentities ? table.entityNumbers : [table.number]
            sql += " WHERE t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
        }
        let orders = try request.sortDescriptors.map { sort -> String in
            guard let column = table.column(for: sort.keyPath) else {
                throw FetchError(.unsupported, "sorting by \(sort.keyPath) does not compile to SQL yet")
            }
            return "t0.\(column.name) \(sort.ascending ? "ASC" : "DESC")"
        }
        if !orders.isEmpty { sql += " ORDER BY " + orders.joined(separator: ", ") }
        var bindings: [SQLValue] = []
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1), .integer(Int64(request.fetchOffset))]
        }
        return CompiledQuery(sql: sql, bindings: bindings)
    }

    /// `SELECT COUNT(*)` over what ``selectObjects(_:columns:)`` would return.
    func count(_ request: StoreFetchRequest) throws -> CompiledQuery {
        let inner = try selectObjects(request, columns: ["t0.Z_PK"])
        return CompiledQuery(sql: "SELECT COUNT(*) FROM (\(inner.sql))", bindings: inner.bindings)
    }

    /// A partial index's predicate as SQL with its constants written inline.
    func indexPredicate(_ format: String, on table: EntityTable) throws -> String {
        throw FetchError(.unsupported, "partial-index predicates do not compile to SQL yet")
    }
}

/// A dictionary fetch's SELECT and how to read its rows.
struct DictionaryQuery: Sendable {
    var query: CompiledQuery
    func read(_ row: SQLiteStatement, objectID: (String, Int64) -> ManagedObjectID) -> [String: StoreValue] { [:] }
}

extension SQLCompiler {
    func selectDictionaries(_ request: StoreFetchRequest) throws -> DictionaryQuery {
        throw FetchError(.unsupported, "dictionary results do not compile to SQL yet")
    }
}
