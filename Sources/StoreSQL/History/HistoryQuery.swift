import Foundation
import StoreCore

/// A history request as one SQL query over the history tables: transactions (`t`) joined with
/// their changes (`c`), restricted by the request's bound and — where it translates — by the
/// narrowing fetch request's predicate, in transaction and change order.
///
/// Translated: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `IN`) of `changedObjectID`,
/// `changedEntity`, `changeType`, `changeID` and the transaction keys (`author`, `contextName`,
/// `timestamp`, `processID`, `transactionNumber`; on changes as `transaction.<key>`) with
/// constants, joined by AND, OR and NOT. Anything else is evaluated in memory on the rows the
/// bound selects, with the same result.
///
/// A row may be a range of changes (``SQLHistoryTables/lastKey``): entity, type and transaction
/// are the same for all its changes, but `changedObjectID` and `changeID` differ. Where the
/// store records ranges, those two select every row that may hold a matching change (and, under
/// NOT, exclude only rows whose every change matches), and the predicate is then evaluated again
/// in memory on the expanded changes.
///
/// For example, changes to one object after a date:
///
/// ```
/// … FROM Z_HISTORYTRANSACTION t LEFT JOIN Z_HISTORYCHANGE c ON c.ZTRANSACTION = t.Z_PK
///   WHERE t.ZTIMESTAMP > ?1 AND (c.ZENTITY = ?2 AND c.ZENTITYPK = ?3) ORDER BY t.Z_PK, c.Z_PK
/// ```
package struct HistoryQuery {
    package var sql: String
    package var arguments: [SQLValue]
    /// Whether the predicate went into the SQL (else it must be evaluated on the rows).
    package var translatedPredicate: Bool

    /// The columns read: the transaction's five, then the change's seven (the last key `NULL`
    /// where the store records no ranges).
    package static func columns(ranges: Bool) -> String {
        "t.Z_PK, t.ZTIMESTAMP, t.ZAUTHOR, t.ZCONTEXTNAME, t.ZPROCESSID, c.Z_PK, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS, c.ZTOMBSTONE, "
            + (ranges ? "c.\(SQLHistoryTables.lastKey)" : "NULL")
    }

    /// The query of `request` to the history of the store `storeIdentifier` (a token of another
    /// store bounds nothing); `ranges`: whether the store's change rows may be ranges.
    package init(_ request: PersistentHistoryChangeRequest, schema: SQLSchema, storeIdentifier: String, ranges: Bool) {
        var conditions: [String] = []
        arguments = []
        let first = schema.dialect.parameter(1, declaredType: nil)
        switch request.bound {
        case .date(let date):
            conditions.append("t.ZTIMESTAMP > \(first)")
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        case .token(let token?) where token.storeIdentifier == storeIdentifier:
            conditions.append("t.Z_PK > \(first)")
            arguments.append(.integer(token.transactionNumber))
        case .token:
            break
        }
        translatedPredicate = true
        if let fetch = request.fetchRequest, let predicate = fetch.predicate {
            var translator = HistoryPredicateTranslator(
                schema: schema, onChanges: fetch.entity == .change, boundArguments: arguments.count, ranges: ranges)
            if let condition = translator.condition(predicate) {
                conditions.append(condition)
                arguments += translator.arguments
                translatedPredicate = !translator.isApproximate
            } else {
                translatedPredicate = false
            }
        }
        sql = "SELECT \(Self.columns(ranges: ranges)) FROM \(SQLHistoryTables.transactions) t LEFT JOIN \(SQLHistoryTables.changes) c ON c.ZTRANSACTION = t.Z_PK"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY t.Z_PK, c.Z_PK"
    }
}

/// Translates a history predicate to SQL over `t` and `c`, or gives `nil` for what it does not know.
struct HistoryPredicateTranslator {
    let schema: SQLSchema
    let onChanges: Bool
    /// Arguments bound before the translator's.
    let boundArguments: Int
    /// Whether change rows may be ranges.
    let ranges: Bool
    private(set) var arguments: [SQLValue] = []
    /// Whether a condition selects more rows than match (a range holding a match): the
    /// predicate must then be evaluated again on the changes.
    private(set) var isApproximate = false

    init(schema: SQLSchema, onChanges: Bool, boundArguments: Int, ranges: Bool) {
        self.schema = schema
        self.onChanges = onChanges
        self.boundArguments = boundArguments
        self.ranges = ranges
    }

    /// Binds `value` and returns its parameter.
    private mutating func bind(_ value: SQLValue) -> String {
        arguments.append(value)
        return schema.dialect.parameter(boundArguments + arguments.count, declaredType: nil)
    }

    private func compare(_ column: String, _ sqlOperator: String, _ parameter: String) -> String {
        switch sqlOperator {
        case "IS": schema.dialect.isSame(column, parameter, negated: false)
        case "IS NOT": schema.dialect.isSame(column, parameter, negated: true)
        default: "\(column) \(sqlOperator) \(parameter)"
        }
    }

    /// The condition of `predicate`; `negated`: whether it stands under an odd number of NOTs,
    /// where a range's condition must hold only when every change of the range matches.
    mutating func condition(_ predicate: StorePredicate, negated: Bool = false) -> String? {
        switch predicate {
        case .constant(let value):
            return value ? "TRUE" : "FALSE"
        case .and(let parts):
            let translated = parts.map { condition($0, negated: negated) }
            guard !translated.contains(where: { $0 == nil }) else { return nil }
            return translated.isEmpty ? "TRUE" : "(" + translated.compactMap { $0 }.joined(separator: " AND ") + ")"
        case .or(let parts):
            let translated = parts.map { condition($0, negated: negated) }
            guard !translated.contains(where: { $0 == nil }) else { return nil }
            return translated.isEmpty ? "FALSE" : "(" + translated.compactMap { $0 }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return condition(inner, negated: !negated).map { "NOT \($0)" }
        case .comparison(let comparison):
            return self.comparison(comparison, negated: negated)
        }
    }

    private mutating func comparison(_ comparison: StoreComparison, negated: Bool) -> String? {
        guard comparison.modifier == .direct, comparison.options.isEmpty else { return nil }
        var op = comparison.operator
        var keyPath: String
        var constant: StoreExpression
        if case .keyPath(let path) = comparison.left {
            (keyPath, constant) = (path, comparison.right)
        } else if case .keyPath(let path) = comparison.right, let flipped = Self.flipped(op) {
            (keyPath, constant, op) = (path, comparison.left, flipped)
        } else {
            return nil
        }
        if onChanges, keyPath.hasPrefix("transaction.") { keyPath.removeFirst("transaction.".count) }
        else if !onChanges, keyPath.hasPrefix("transaction.") { return nil }
        let values: [StoreValue]
        switch (op, constant) {
        case (.in, .aggregate(let items)):
            var list: [StoreValue] = []
            for item in items {
                guard case .constant(let value) = item else { return nil }
                list.append(value)
            }
            values = list
        case (.in, _):
            return nil
        case (_, .constant(let value)):
            values = [value]
        default:
            return nil
        }
        if op == .in {
            let each = values.map { single(keyPath, .equalTo, $0, negated: negated) }
            guard !each.contains(where: { $0 == nil }) else { return nil }
            return each.isEmpty ? "FALSE" : "(" + each.compactMap { $0 }.joined(separator: " OR ") + ")"
        }
        return values.first.flatMap { single(keyPath, op, $0, negated: negated) }
    }

    private mutating func single(_ key: String, _ op: StoreComparison.Operator, _ value: StoreValue, negated: Bool) -> String? {
        let sqlOperator: String
        switch op {
        case .equalTo: sqlOperator = "IS"
        case .notEqualTo: sqlOperator = "IS NOT"
        case .lessThan: sqlOperator = "<"
        case .lessThanOrEqualTo: sqlOperator = "<="
        case .greaterThan: sqlOperator = ">"
        case .greaterThanOrEqualTo: sqlOperator = ">="
        default: return nil
        }
        if onChanges, key == "changedObjectID" || key == "changedObject" {
            guard op == .equalTo || op == .notEqualTo, case .objectID(let id) = value, let table = schema.tables[id.entityName], let pk = id.primaryKey else { return nil }
            guard ranges else {
                return (op == .equalTo ? "" : "NOT ") + "(c.ZENTITY = \(bind(.integer(table.number))) AND c.ZENTITYPK = \(bind(.integer(pk))))"
            }
            // `!=` is NOT `==`: the row must be one that may hold the object where the whole
            // condition stands unnegated, one that surely does where it stands negated.
            let mayHold = (op == .equalTo) != negated
            let entity = bind(.integer(table.number))
            let key = bind(.integer(pk))
            let lastKey = "c.\(SQLHistoryTables.lastKey)"
            // May hold: a row starting at the key, or at the first key of a range holding it (found
            // by the range index) — each an equality on the object index.
            let holds = mayHold
                ? "(c.ZENTITY = \(entity) AND c.ZENTITYPK IN (SELECT CAST(\(key) AS BIGINT) UNION ALL SELECT r.ZENTITYPK "
                    + "FROM \(SQLHistoryTables.changes) r WHERE r.ZENTITY = \(entity) AND r.\(SQLHistoryTables.lastKey) >= \(key) AND r.ZENTITYPK <= \(key)))"
                : "(c.ZENTITY = \(entity) AND c.ZENTITYPK = \(key) AND \(lastKey) IS NULL)"
            isApproximate = true
            return (op == .equalTo ? "" : "NOT ") + holds
        }
        if onChanges, key == "changedEntity" || key == "entityName" {
            guard op == .equalTo || op == .notEqualTo, case .string(let name) = value, let table = schema.tables[name] else { return nil }
            return compare("c.ZENTITY", sqlOperator, bind(.integer(table.number)))
        }
        let column: String
        switch key {
        case "changeType" where onChanges: column = "c.ZCHANGETYPE"
        case "changeID" where onChanges && ranges: return changeID(sqlOperator, value, negated: negated)
        case "changeID" where onChanges: column = "c.Z_PK"
        case "author": column = "t.ZAUTHOR"
        case "contextName": column = "t.ZCONTEXTNAME"
        case "timestamp": column = "t.ZTIMESTAMP"
        case "processID": column = "t.ZPROCESSID"
        case "transactionNumber", "token": column = "t.Z_PK"
        default: return nil
        }
        let bound: SQLValue
        switch value {
        case .null: bound = .null
        case .integer(let n): bound = .integer(n)
        case .boolean(let b): bound = .integer(b ? 1 : 0)
        case .double(let d): bound = .real(d)
        case .string(let text) where column == "t.ZAUTHOR" || column == "t.ZCONTEXTNAME": bound = .text(text)
        case .date(let date) where column == "t.ZTIMESTAMP": bound = .real(date.timeIntervalSinceReferenceDate)
        default: return nil
        }
        return compare(column, sqlOperator, bind(bound))
    }

    /// A comparison of `changeID` where a row may be a range: its changes have the IDs from
    /// `c.Z_PK - (last key - first key)` through `c.Z_PK`. Unnegated, the row must possibly hold
    /// a matching ID; negated, every ID of it must match.
    private mutating func changeID(_ sqlOperator: String, _ value: StoreValue, negated: Bool) -> String? {
        guard case .integer(let number) = value else { return nil }
        isApproximate = true
        let id = bind(.integer(number))
        let lastID = "c.Z_PK"
        let firstID = "(c.Z_PK - COALESCE(c.\(SQLHistoryTables.lastKey) - c.ZENTITYPK, 0))"
        let single = "c.\(SQLHistoryTables.lastKey) IS NULL"
        switch (sqlOperator, negated) {
        case ("IS", false): return "(\(firstID) <= \(id) AND \(lastID) >= \(id))"
        case ("IS", true): return "(\(lastID) = \(id) AND \(single))"
        case ("IS NOT", false): return "NOT (\(lastID) = \(id) AND \(single))"
        case ("IS NOT", true): return "NOT (\(firstID) <= \(id) AND \(lastID) >= \(id))"
        case ("<", false), ("<=", false): return "\(firstID) \(sqlOperator) \(id)"
        case ("<", true), ("<=", true): return "\(lastID) \(sqlOperator) \(id)"
        case (">", false), (">=", false): return "\(lastID) \(sqlOperator) \(id)"
        case (">", true), (">=", true): return "\(firstID) \(sqlOperator) \(id)"
        default: return nil
        }
    }

    private static func flipped(_ op: StoreComparison.Operator) -> StoreComparison.Operator? {
        switch op {
        case .equalTo, .notEqualTo: op
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: nil
        }
    }
}
