import StoreCore

/// Dictionary fetches, giving the rows the in-memory `DictionaryFetch` gives.
///
/// Without grouping, aggregates or DISTINCT, one row per object:
///
/// ```
/// SELECT t0.ZPLACE, t1.ZNAME FROM ZQUAKE t0 LEFT JOIN ZREGION t1 ON t1.Z_PK = t0.ZREGION
/// WHERE … ORDER BY … , t0.Z_PK LIMIT ?1 OFFSET ?2
/// ```
///
/// Otherwise the matching objects' per-row values are computed once in a common table
/// expression, numbered in the fetch's sort order, and grouped from there — which is what lets
/// SQL follow the evaluator exactly: groups come in the order of their first object, a column
/// that is neither grouped nor aggregated takes the group's first object's value (`FIRST_VALUE`),
/// DISTINCT keeps a row's first occurrence, and `median:`, `mode:` and `stddev:` run over each
/// group's rows:
///
/// ```
/// WITH zrows AS (SELECT t0.ZPLACE AS g0, t0.ZMAGNITUDE AS a1, ROW_NUMBER() OVER (ORDER BY t0.ZPLACE ASC, t0.Z_PK) AS zr
///                FROM ZQUAKE t0 WHERE …)
/// SELECT c0, c1 FROM (SELECT AVG(zrows.a1) AS c0, zrows.g0 AS c1, MIN(zrows.zr) AS zr FROM zrows
///                     GROUP BY zrows.g0 HAVING AVG(zrows.a1) > ?1) ORDER BY zr
/// ```
extension SQLCompiler {
    /// A dictionary fetch (see ``DictionaryQuery``).
    package func selectDictionaries(_ request: StoreFetchRequest) throws -> DictionaryQuery {
        let fetch = try FilteredFetch(request, schema: schema, model: model)
        let requested = request.propertiesToFetch ?? fetch.entity.attributes.filter { !$0.isTransient }.map { .property($0.name) }
        let groupBy = request.propertiesToGroupBy ?? []
        try DictionaryFetch.checkColumns(requested + groupBy, of: fetch.entity)
        let planner = DictionaryPlanner(fetch: fetch, schema: schema)
        let columns = try requested.map { try planner.plan($0) }
        let groups = try groupBy.map { try planner.plan($0) }
        if groups.isEmpty && !columns.contains(where: \.isAggregate) && !request.returnsDistinctResults {
            return try planner.rowQuery(columns, request)
        }
        return try planner.groupedQuery(columns, groups: groups, request)
    }
}
