import StoreCore

/// Sort descriptors as ORDER BY terms that order rows as the in-memory `SortComparator` does.
///
/// - NULL sorts first ascending and last descending: SQLite's order of NULL, which other
///   databases are told (``SQLDialect/nullOrdering(ascending:)``).
/// - Strings: `.default` is code-point order (SQLite's BINARY); `.caseInsensitive`,
///   `.localized` and `.localizedCaseInsensitive` use the collations `STOWAGE_CASE_INSENSITIVE`,
///   `STOWAGE_LOCALIZED` and `STOWAGE_LOCALIZED_CASE_INSENSITIVE`, which call the same
///   Foundation comparisons as the evaluator (`caseInsensitiveCompare`, `localizedCompare`,
///   `localizedCaseInsensitiveCompare`); a collation applies only when both values are text.
/// - Numbers of any kind by value, dates by time, data and UUIDs by bytes.
/// - Keys the evaluator cannot order (objects, URIs) are equal but for NULL, which comes first
///   ascending; collections are NULL, so all equal.
///
/// For example, `[.ascending("region.name", comparison: .caseInsensitive), .descending("magnitude")]`:
///
/// ```
/// ORDER BY t1.ZNAME COLLATE STOWAGE_CASE_INSENSITIVE ASC, t0.ZMAGNITUDE DESC
/// ```
extension QueryTranslator {
    package func orderTerms(_ descriptors: [StoreSortDescriptor], _ scope: QueryScope) throws -> [String] {
        var terms: [String] = []
        for descriptor in descriptors {
            let value = try follow(descriptor.keyPath, from: scope.subject).scalar
            guard value.constant == nil else { continue }
            guard value.kind.canOrder(against: value.kind) else {
                // Values without an order are all equal — but NULL still comes first.
                if value.nullable { terms.append("(\(value.sql) IS NULL) \(descriptor.ascending ? "DESC" : "ASC")") }
                continue
            }
            var sql = value.sql
            if value.kind.mayBeString {
                switch descriptor.comparison {
                case .default: break
                case .caseInsensitive: sql += " COLLATE \(schema.dialect.caseInsensitiveCollation)"
                case .localized: sql += " COLLATE \(schema.dialect.localizedCollation)"
                case .localizedCaseInsensitive: sql += " COLLATE \(schema.dialect.localizedCaseInsensitiveCollation)"
                }
            }
            terms.append("\(sql) \(descriptor.ascending ? "ASC" : "DESC")" + schema.dialect.nullOrdering(ascending: descriptor.ascending))
        }
        return terms
    }
}
