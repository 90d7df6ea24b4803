import StoreCore

/// A SELECT with its bound values (`?1`, `?2`… in the SQL, in the order of ``bindings``).
package struct CompiledQuery: Sendable {
    package var sql: String
    package var bindings: [SQLValue]
}

/// Translates fetch requests into SQL for one schema, giving the same results as the
/// in-memory evaluator on the same data (docs/query-language.md describes the semantics).
///
/// Every user value is a bound parameter. To-one key paths LEFT JOIN the destination's table
/// once per distinct path; to-many key paths become correlated subqueries (`EXISTS`,
/// `(SELECT COUNT(*) …)`), so a row is never returned twice. What cannot be expressed in SQL
/// throws a ``StoreCore/FetchError`` with code `unsupported` naming the construct; errors the
/// evaluator raises (an unknown key, an unbound variable, a bad regular expression, a function
/// given the wrong arguments) are raised with the same code, at compile time.
///
/// For example:
///
/// ```swift
/// let compiler = SQLCompiler(schema: SQLSchema(model: model), model: model)
/// var request = StoreFetchRequest(entityName: "Quake")
/// request.predicate = try .format("magnitude > %@ AND ANY reports.author ==[c] %@", 5, "ada")
/// request.sortDescriptors = [.descending("time")]
/// let query = try compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
/// // SELECT t0.Z_PK, t0.Z_ENT FROM ZQUAKE t0 WHERE t0.ZMAGNITUDE > ?1 AND EXISTS (SELECT 1 FROM
/// //   ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK AND stowage_fold(t1.ZAUTHOR, 1) = ?2)
/// //   ORDER BY t0.ZTIME DESC, t0.Z_PK        bindings [5, 'ada']
/// ```
package struct SQLCompiler: Sendable {
    package let schema: SQLSchema
    package let model: ManagedObjectModel
    /// The SQL of recent object and count fetches by the shape of their requests.
    package let cache: CompiledQueryCache

    /// A compiler for `schema`; `cacheCapacity` shapes of requests keep their SQL (0: none).
    package init(schema: SQLSchema, model: ManagedObjectModel, cacheCapacity: Int = 64) {
        self.schema = schema
        self.model = model
        cache = CompiledQueryCache(capacity: cacheCapacity)
    }

    /// `SELECT <columns> FROM <root table> t0 <joins> WHERE <entity filter> AND <predicate>
    /// ORDER BY … LIMIT ?n OFFSET ?m`; `columns` are SQL expressions over the alias `t0`.
    ///
    /// Rows that sort equal come in `Z_PK` order, so pages taken with limit and offset are stable.
    /// A request of a shape compiled before takes its SQL from ``cache`` (``QueryShape``).
    package func selectObjects(_ request: StoreFetchRequest, columns: [String]) throws -> CompiledQuery {
        let dialect = schema.dialect
        return try cache.query(for: request, statement: .objects(columns: columns), encode: { QueryTranslator.encodedConstant($0, dialect: dialect) }) {
            try compileObjects(request, columns: columns)
        }
    }

    /// What ``selectObjects(_:columns:)`` compiles for an object fetch of `entityName` with the
    /// predicate `key IN {values…}`, from the values as they are: no predicate tree of one
    /// constant per value to build, measure and walk (a save's constraint check asks for 100,000).
    /// The values are tested as that predicate's are (``QueryTranslator/membership(_:_:)``: a long
    /// list bound as one value where the dialect can) — or, for a long list in a dialect with
    /// tables of values (SQLite), joined to the rows: `SELECT … FROM json_each(?1) AS q_values
    /// CROSS JOIN ZITEM t0 WHERE t0.ZCODE = q_values.value`, the same rows (a value listed twice
    /// gives its rows twice) without the sorted copy of the list `IN` makes first. Not cached:
    /// such lists are long.
    ///
    /// For example:
    ///
    /// ```swift
    /// let query = try compiler.selectObjects(ofEntity: "Item", whose: "code", isAmong: [.string("a"), .string("b")], columns: ["t0.Z_PK"])
    /// // SELECT t0.Z_PK FROM ZITEM t0 WHERE t0.ZCODE IN (?1, ?2)        bindings ['a', 'b']
    /// ```
    package func selectObjects(ofEntity entityName: String, whose key: String, isAmong values: [StoreValue], columns: [String]) throws -> CompiledQuery {
        let fetch = try FilteredFetch(StoreFetchRequest(entityName: entityName, resultType: .managedObject), schema: schema, model: model)
        let translator = fetch.translator
        let condition: SQLCondition
        if !values.isEmpty, case .scalar(let subject) = try translator.operand(.keyPath(key), fetch.scope), subject.constant == nil {
            // A long list joined where the dialect can: the rows' index is probed value by value.
            if let joined = translator.joinedList(subject, values) {
                fetch.level.restrict(joined.condition)
                let columns = columns.joined(separator: ", ")
                return translator.finish("SELECT \(columns) FROM \(joined.table) CROSS JOIN \(fetch.level.sql)\(fetch.level.whereClause)")
            }
            condition = try translator.scalar(subject, isIn: values, [])
        } else {
            condition = try translator.condition(StoreComparison(.keyPath(key), .in, .aggregate(values.map(StoreExpression.constant))), fetch.scope)
        }
        fetch.level.restrict(condition.sql)
        return translator.finish(fetch.level.select(columns.joined(separator: ", ")))
    }

    private func compileObjects(_ request: StoreFetchRequest, columns: [String]) throws -> CompiledQuery {
        let fetch = try FilteredFetch(request, schema: schema, model: model)
        let translator = fetch.translator
        var orders = try translator.orderTerms(request.sortDescriptors, fetch.scope)
        if !orders.isEmpty || request.fetchLimit > 0 || request.fetchOffset > 0 { orders.append("t0.Z_PK") }
        var sql = fetch.level.select(columns.joined(separator: ", "))
        if !orders.isEmpty { sql += " ORDER BY " + orders.joined(separator: ", ") }
        sql += fetch.limitClause(request)
        return translator.finish(sql)
    }

    /// `SELECT COUNT(*)` of what ``selectObjects(_:columns:)`` returns (limit and offset honoured).
    package func count(_ request: StoreFetchRequest) throws -> CompiledQuery {
        let dialect = schema.dialect
        return try cache.query(for: request, statement: .count, encode: { QueryTranslator.encodedConstant($0, dialect: dialect) }) {
            try compileCount(request)
        }
    }

    private func compileCount(_ request: StoreFetchRequest) throws -> CompiledQuery {
        let fetch = try FilteredFetch(request, schema: schema, model: model)
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            let page = fetch.level.select("t0.Z_PK") + fetch.limitClause(request)
            return fetch.translator.finish("SELECT COUNT(*) FROM (\(page)) AS q_page")
        }
        return fetch.translator.finish(fetch.level.select("COUNT(*)"))
    }

    /// A partial index's predicate as SQL with its constants written inline (an index
    /// definition cannot take parameters) and its columns unqualified.
    ///
    /// Only comparisons of the entity's own attributes compile: a join, a subquery or one of
    /// Stowage's SQL functions (for `[c]`, LIKE, MATCHES…) would make the table unwritable by
    /// programs that do not define them.
    ///
    /// For example, `"title != nil AND views >= 10 AND title != 'it''s'"` on `Post`:
    ///
    /// ```
    /// (ZTITLE IS NOT NULL AND ZVIEWS >= 10 AND ZTITLE IS NOT 'it''s')
    /// ```
    package func indexPredicate(_ format: String, on table: EntityTable) throws -> String {
        let predicate: StorePredicate
        do {
            predicate = try StorePredicate(format: format)
        } catch {
            throw FetchError(.invalidPredicate, "the partial index predicate '\(format)' does not parse: \(error)")
        }
        let entity = try model.entity(named: table.name)
        let translator = QueryTranslator(schema: schema, model: model, inlinesConstants: true)
        let (_, scope) = translator.root(entity, table: table)
        return try translator.condition(predicate, scope).sql
    }
}

/// The part every fetch shares: the entity's table as `t0`, the entity filter, the predicate
/// (with its R-tree lookups) in the WHERE clause, and the translator holding their bindings.
package struct FilteredFetch {
    package let translator: QueryTranslator
    package let entity: EntityDescription
    package let table: EntityTable
    package let level: QueryLevel
    package let scope: QueryScope

    package init(_ request: StoreFetchRequest, schema: SQLSchema, model: ManagedObjectModel) throws {
        entity = try model.entity(named: request.entityName)
        table = try schema.table(for: entity.name)
        translator = QueryTranslator(schema: schema, model: model)
        (level, scope) = translator.root(entity, table: table)
        // The root entity with its sub-entities is every row of its table: no filter needed.
        if table.sharesTable && !(request.includesSubentities && entity.superentity == nil) {
            let numbers = request.includesSubentities ? table.entityNumbers : [table.number]
            level.restrict(numbers.count == 1 ? "t0.Z_ENT = \(numbers[0])" : "t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
        }
        guard let predicate = request.predicate else { return }
        try predicate.checkTreeDepth()
        let conjuncts = Self.conjuncts(of: predicate)
        for lookup in try translator.rTreeConditions(conjuncts, entity: entity, rootKey: "t0.Z_PK") {
            level.restrict(lookup)
        }
        // The parts of a top-level AND go into the WHERE clause side by side.
        for part in conjuncts { level.restrict(try translator.condition(part, scope).sql) }
    }

    /// The parts of nested top-level ANDs.
    private static func conjuncts(of predicate: StorePredicate) -> [StorePredicate] {
        if case .and(let parts) = predicate { return parts.flatMap(conjuncts) }
        return [predicate]
    }

    /// ` LIMIT ?n OFFSET ?m` (`LIMIT -1` for an offset alone), or nothing.
    package func limitClause(_ request: StoreFetchRequest) -> String {
        guard request.fetchLimit > 0 || request.fetchOffset > 0 else { return "" }
        let limit = request.fetchLimit > 0 ? translator.bind(.integer(Int64(request.fetchLimit)))
            : translator.schema.dialect.unlimited ?? translator.bind(.integer(-1))
        let offset = translator.bind(.integer(Int64(max(0, request.fetchOffset))))
        return " LIMIT \(limit) OFFSET \(offset)"
    }
}
