/// A compiled predicate: SQL that is true, false or — for comparisons with NULL — NULL (SQLite
/// gives 1 and 0; PostgreSQL's conditions are booleans, so the constants are `TRUE` and `FALSE`,
/// which SQLite reads as 1 and 0).
///
/// In a WHERE clause NULL acts as false, and AND and OR treat it consistently with that; only
/// NOT would turn a NULL into another NULL where the evaluator wants true (`NOT magnitude > 5`
/// holds for a NULL magnitude). So a negation of a condition that can be NULL compiles to
/// `(…) IS NOT TRUE`, which is true for both false and NULL.
///
/// For example:
///
/// ```swift
/// SQLCondition(sql: "t0.ZMAGNITUDE > ?1", isTwoValued: false).negated().sql   // "(t0.ZMAGNITUDE > ?1) IS NOT TRUE"
/// SQLCondition.all([.true, x]).sql                                             // x.sql
/// ```
package struct SQLCondition {
    package var sql: String
    /// Whether the SQL is never NULL.
    package var isTwoValued: Bool

    package static let `true` = SQLCondition(sql: "TRUE", isTwoValued: true)
    package static let `false` = SQLCondition(sql: "FALSE", isTwoValued: true)

    package var isTrue: Bool { sql == "TRUE" }
    package var isFalse: Bool { sql == "FALSE" }

    package static func constant(_ value: Bool) -> SQLCondition { value ? .true : .false }

    package func negated() -> SQLCondition {
        if isTrue { return .false }
        if isFalse { return .true }
        return isTwoValued ? SQLCondition(sql: "NOT (\(sql))", isTwoValued: true) : SQLCondition(sql: "(\(sql)) IS NOT TRUE", isTwoValued: true)
    }

    /// The conjunction (TRUE when empty).
    package static func all(_ parts: [SQLCondition]) -> SQLCondition {
        if parts.contains(where: \.isFalse) { return .false }
        let kept = parts.filter { !$0.isTrue }
        if kept.isEmpty { return .true }
        if kept.count == 1 { return kept[0] }
        return SQLCondition(sql: grouped(kept.map(\.sql), " AND "), isTwoValued: kept.allSatisfy(\.isTwoValued))
    }

    /// The disjunction (FALSE when empty).
    package static func any(_ parts: [SQLCondition]) -> SQLCondition {
        if parts.contains(where: \.isTrue) { return .true }
        let kept = parts.filter { !$0.isFalse }
        if kept.isEmpty { return .false }
        if kept.count == 1 { return kept[0] }
        return SQLCondition(sql: grouped(kept.map(\.sql), " OR "), isTwoValued: kept.allSatisfy(\.isTwoValued))
    }

    /// The largest run of terms joined without parentheses.
    static let groupSize = 32

    /// `(a OR b OR …)`; a chain longer than ``groupSize`` is parenthesized in groups, nested as
    /// a balanced tree, because databases parse a flat chain into a tree as deep as the chain
    /// (SQLite refuses one deeper than 1,000: "Expression tree is too large").
    private static func grouped(_ terms: [String], _ separator: String) -> String {
        guard terms.count > groupSize else { return "(" + terms.joined(separator: separator) + ")" }
        let groupLength = (terms.count + groupSize - 1) / groupSize
        let groups = stride(from: 0, to: terms.count, by: groupLength).map { start in
            grouped(Array(terms[start..<min(start + groupLength, terms.count)]), separator)
        }
        return "(" + groups.joined(separator: separator) + ")"
    }
}
