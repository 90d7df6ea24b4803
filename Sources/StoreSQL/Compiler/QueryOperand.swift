import StoreCore

/// What an expression compiles to: a scalar SQL value, an object (its `Z_PK`), a collection of
/// rows (a to-many relationship, a subquery), or a list of operands (`{a, b}`).
///
/// For example, for a fetch of `Quake` (table `ZQUAKE t0`):
///
/// ```
/// magnitude              .scalar(t0.ZMAGNITUDE, real)
/// region                 .object(key t0.ZREGION, entity Region)
/// reports                .collection(FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK, element t1)
/// {1, depth}             .list([?1, t0.ZDEPTH])
/// ```
package indirect enum QueryOperand {
    case scalar(SQLScalar)
    case object(ObjectReference)
    case collection(RowCollection)
    case list([QueryOperand])

    /// The operand read as one value, as the evaluator's `storeValue` does: an object is its ID
    /// (its key), a collection is NULL.
    package var scalar: SQLScalar {
        switch self {
        case .scalar(let value): value
        case .object(let object): SQLScalar(sql: object.key, kind: .object(object.entity.name), nullable: object.nullable)
        case .collection, .list: .null
        }
    }

    package var isCollection: Bool {
        switch self {
        case .collection, .list: true
        case .scalar, .object: false
        }
    }
}

/// A scalar SQL expression with its kind, whether it can be NULL, and its value when it is a
/// constant.
package struct SQLScalar {
    package var sql: String
    package var kind: SQLKind
    package var nullable: Bool
    /// The value of a constant (bound or written inline).
    package var constant: StoreValue?
    /// The attribute type of a column (or of its minimum or maximum), for reading it back exactly.
    package var attributeType: AttributeType?

    package init(sql: String, kind: SQLKind, nullable: Bool = true, constant: StoreValue? = nil, attributeType: AttributeType? = nil) {
        self.sql = sql
        self.kind = kind
        self.nullable = nullable
        self.constant = constant
        self.attributeType = attributeType
    }

    package static let null = SQLScalar(sql: "NULL", kind: .null, nullable: true, constant: .null)

    package var isNullConstant: Bool { constant?.isNull == true }
}

/// An object reached by a key path: the SQL of its `Z_PK` (`t0.Z_PK`, or a foreign key such as
/// `t0.ZREGION`), the alias of its row once joined, its declared entity, and the query level
/// whose FROM clause receives the join.
package struct ObjectReference {
    package var key: String
    package var alias: String?
    package var entity: EntityDescription
    package var level: QueryLevel
    package var nullable: Bool
}

/// Rows of a correlated subquery — a to-many relationship, a subquery, a list turned into a
/// derived table — with the value of one element per row.
///
/// Rendered as `SELECT <x> FROM <level.from> WHERE <level.conditions>`.
package struct RowCollection {
    package var level: QueryLevel
    /// Each row's element: a scalar or an object (never a collection: nested ones are joined in).
    package var element: QueryOperand
    /// Whether equal elements count once (`@distinctUnionOfObjects`).
    package var distinct = false
    /// When the collection was reached through a to-one that can be NULL, the SQL that is NULL
    /// exactly then: the evaluator then has NULL, not an empty collection (`region.quakes == nil`).
    package var nullWhenNull: String?
    /// How the rows are ordered for index subscripts (`[FIRST]`, `[n]`).
    package var order: RowOrder = .none(FetchError(.unsupported, "an index subscript of this collection does not compile to SQL"))
}

/// How a collection's rows are ordered for index subscripts, as the evaluator orders them.
package enum RowOrder {
    /// By a position column (the `Z_FOK_…` of an ordered relationship).
    case position(String)
    /// Members of an unordered to-many, by their key (`Z_PK`): FIRST is the lowest, LAST the highest.
    case key(String)
    /// No order a subscript can use: indexing throws this error.
    case none(FetchError)
}

/// The FROM and WHERE clauses of one SELECT (the fetch itself, or a subquery): a base table,
/// the joins key paths add to it (each to-one joined once per distinct foreign key), and the
/// conditions on its rows.
///
/// A class: key paths compiled anywhere below a level add their joins to it, and it is rendered
/// after everything that uses it has been compiled.
package final class QueryLevel {
    package private(set) var from: [String]
    package private(set) var conditions: [String] = []
    private var joins: [String: String] = [:]

    package init(_ base: String, conditions: [String] = []) {
        from = [base]
        self.conditions = conditions
    }

    /// Adds a condition on the level's rows (`1` is left out).
    package func restrict(_ condition: String) {
        if condition != SQLCondition.true.sql { conditions.append(condition) }
    }

    /// ` WHERE a AND b`, or nothing.
    package var whereClause: String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// `SELECT <columns> FROM … WHERE …`, with `extra` conditions.
    package func select(_ columns: String, extra: [String] = []) -> String {
        let all = conditions + extra.filter { $0 != SQLCondition.true.sql }
        return "SELECT \(columns) FROM \(sql)" + (all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND "))
    }

    /// The alias joined for `key`, if any.
    package func alias(joinedOn key: String) -> String? { joins[key] }

    /// Appends a join; `key` names it for reuse.
    package func append(_ join: String, key: String? = nil, alias: String? = nil) {
        from.append(join)
        if let key, let alias { joins[key] = alias }
    }

    package var sql: String { from.joined(separator: " ") }
}
