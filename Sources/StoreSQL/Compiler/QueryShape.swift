import StoreCore

/// What a fetch's SQL text depends on: the request with its constants reduced to their kinds
/// (and to which of them are equal), so that two requests of one shape compile to the same SQL
/// and differ only in their bound values — ``CompiledQueryCache``'s key.
///
/// Only requests whose SQL provably depends on nothing but the shape have one
/// (``make(_:statement:encode:)`` returns `nil` for the rest, which are compiled every time).
/// Their predicates are made of:
///
/// - TRUEPREDICATE, FALSEPREDICATE, AND, OR, NOT;
/// - comparisons without `[c]`/`[d]`/`[n]`, with any modifier, of a key path on the left with a
///   key path or a constant on the right by `==`, `!=`, `<`, `<=`, `>`, `>=`, or with a list of
///   constants by `IN` (at most 100, so never bound as one JSON array) or `BETWEEN`;
/// - constants that are NULL, numbers (not NaN), strings, booleans, dates, data, UUIDs or URIs —
///   bound by their value alone. Object IDs (whose entity decides the SQL), functions, variables,
///   `SELF`, subqueries, string operators (whose constants are rewritten: folded, measured,
///   checked as patterns) are left to the compiler.
///
/// Each constant's bound value is a *slot*, in the order the tree is walked, followed by the
/// limit and offset. The compiler binds a value used twice once (`?1` in both places), so which
/// slots hold equal values is part of the shape.
///
/// For example, `magnitude > 2.5 AND time > %@` (a date) sorted by time, limit 100, and
/// `magnitude > 6 AND time > %@` have different shapes (a double and an integer); with `6.0`
/// instead of `6` they have the same, and slots `[2.5, <seconds>, 100]` and `[6.0, <seconds>, 100]`.
package struct QueryShape: Hashable, Sendable {
    /// The statement compiled: the objects' rows with these columns, or their count.
    package enum Statement: Hashable, Sendable {
        case objects(columns: [String])
        case count
    }

    let statement: Statement
    let entityName: String
    let includesSubentities: Bool
    let sortDescriptors: [StoreSortDescriptor]
    let hasLimit: Bool
    let hasOffset: Bool
    /// The request's predicate, read for its structure and its constants' kinds only.
    let predicate: StorePredicate?
    /// For each slot, the first slot holding an equal value — empty when all differ.
    let repeats: [Int]

    /// The deepest predicate a shape is taken of: deeper ones are rare, and the compiler checks
    /// their depth itself.
    private static let maximumDepth = 32
    /// The longest `IN` list a shape is taken of (longer ones may be bound as one JSON array).
    private static let maximumListCount = QueryTranslator.longestListBoundByValue

    /// The request's shape and its slots' values, or `nil` when its SQL may depend on a value.
    ///
    /// `encode` is how the compiler binds a constant (``QueryTranslator/encodedConstant(_:dialect:)``).
    package static func make(
        _ request: StoreFetchRequest, statement: Statement, encode: (StoreValue) -> SQLValue
    ) -> (shape: QueryShape, slots: [SQLValue])? {
        var slots: [SQLValue] = []
        if let predicate = request.predicate {
            guard collect(predicate, depth: 0, into: &slots, encode) else { return nil }
        }
        let hasLimit = request.fetchLimit > 0, hasOffset = request.fetchOffset > 0
        if hasLimit {
            slots.append(.integer(Int64(request.fetchLimit)))
        } else if hasOffset {
            slots.append(.integer(-1))   // `LIMIT -1` where the dialect has no word for no limit
        }
        if hasLimit || hasOffset { slots.append(.integer(Int64(max(0, request.fetchOffset)))) }
        let shape = QueryShape(
            statement: statement, entityName: request.entityName, includesSubentities: request.includesSubentities,
            sortDescriptors: request.sortDescriptors, hasLimit: hasLimit, hasOffset: hasOffset,
            predicate: request.predicate, repeats: repeats(of: slots))
        return (shape, slots)
    }

    /// For each slot the first one with an equal value, or `[]` when no two are equal.
    private static func repeats(of slots: [SQLValue]) -> [Int] {
        var repeats: [Int] = []
        if slots.count <= 16 {
            for index in slots.indices.dropFirst() {
                guard let first = slots[..<index].firstIndex(of: slots[index]) else { continue }
                if repeats.isEmpty { repeats = Array(slots.indices) }
                repeats[index] = first
            }
            return repeats
        }
        var firstOf: [SQLValue: Int] = [:]
        for (index, value) in slots.enumerated() {
            if let first = firstOf[value] {
                if repeats.isEmpty { repeats = Array(slots.indices) }
                repeats[index] = first
            } else {
                firstOf[value] = index
            }
        }
        return repeats
    }

    // MARK: Walking the predicate

    private static func collect(_ predicate: StorePredicate, depth: Int, into slots: inout [SQLValue], _ encode: (StoreValue) -> SQLValue) -> Bool {
        guard depth < maximumDepth else { return false }
        switch predicate {
        case .constant:
            return true
        case .and(let parts), .or(let parts):
            for part in parts {
                guard collect(part, depth: depth + 1, into: &slots, encode) else { return false }
            }
            return true
        case .not(let inner):
            return collect(inner, depth: depth + 1, into: &slots, encode)
        case .comparison(let comparison):
            return collect(comparison, into: &slots, encode)
        }
    }

    private static func collect(_ comparison: StoreComparison, into slots: inout [SQLValue], _ encode: (StoreValue) -> SQLValue) -> Bool {
        guard comparison.options.isEmpty, case .keyPath = comparison.left else { return false }
        switch comparison.operator {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            switch comparison.right {
            case .keyPath: return true
            case .constant(let value): return slot(value, into: &slots, encode)
            default: return false
            }
        case .in, .between:
            guard case .aggregate(let items) = comparison.right,
                comparison.operator == .in ? items.count <= maximumListCount : items.count == 2
            else { return false }
            for item in items {
                guard case .constant(let value) = item, slot(value, into: &slots, encode) else { return false }
            }
            return true
        case .matches, .like, .beginsWith, .endsWith, .contains:
            return false
        }
    }

    /// Appends the constant's bound value; `false` for a constant whose SQL depends on its value.
    private static func slot(_ value: StoreValue, into slots: inout [SQLValue], _ encode: (StoreValue) -> SQLValue) -> Bool {
        switch value {
        case .null:
            return true   // written as NULL, never bound
        case .objectID:
            return false
        case .double, .float, .decimal, .integer, .string, .boolean, .date, .data, .uuid, .uri:
            let encoded = encode(value)
            switch encoded {
            case .null: return false   // NaN, which compiles to a constant
            case .real(let number) where number.isNaN: return false
            default:
                slots.append(encoded)
                return true
            }
        }
    }

    // MARK: Hashing and equality by structure

    package func hash(into hasher: inout Hasher) {
        switch statement {
        case .objects(let columns): hasher.combine(columns.count)
        case .count: hasher.combine(-1)
        }
        hasher.combine(entityName)
        hasher.combine(includesSubentities)
        hasher.combine(sortDescriptors)
        hasher.combine(hasLimit)
        hasher.combine(hasOffset)
        hasher.combine(repeats)
        if let predicate { Self.hashStructure(of: predicate, into: &hasher) } else { hasher.combine(UInt8(255)) }
    }

    package static func == (a: QueryShape, b: QueryShape) -> Bool {
        guard a.entityName == b.entityName, a.includesSubentities == b.includesSubentities, a.hasLimit == b.hasLimit,
            a.hasOffset == b.hasOffset, a.repeats == b.repeats, a.statement == b.statement, a.sortDescriptors == b.sortDescriptors
        else { return false }
        switch (a.predicate, b.predicate) {
        case (nil, nil): return true
        case (let x?, let y?): return sameStructure(x, y)
        default: return false
        }
    }

    private static func hashStructure(of predicate: StorePredicate, into hasher: inout Hasher) {
        switch predicate {
        case .constant(let value):
            hasher.combine(UInt8(0))
            hasher.combine(value)
        case .and(let parts), .or(let parts):
            hasher.combine(UInt8(predicate.isAnd ? 1 : 2))
            hasher.combine(parts.count)
            for part in parts { hashStructure(of: part, into: &hasher) }
        case .not(let inner):
            hasher.combine(UInt8(3))
            hashStructure(of: inner, into: &hasher)
        case .comparison(let comparison):
            hasher.combine(UInt8(4))
            hasher.combine(comparison.operator)
            hasher.combine(comparison.modifier)
            hashStructure(of: comparison.left, into: &hasher)
            hashStructure(of: comparison.right, into: &hasher)
        }
    }

    private static func hashStructure(of expression: StoreExpression, into hasher: inout Hasher) {
        switch expression {
        case .keyPath(let path):
            hasher.combine(UInt8(0))
            hasher.combine(path)
        case .constant(let value):
            hasher.combine(UInt8(1))
            hasher.combine(kind(of: value))
        case .aggregate(let items):
            hasher.combine(UInt8(2))
            hasher.combine(items.count)
            for item in items { hashStructure(of: item, into: &hasher) }
        default:
            hasher.combine(expression)   // not in a shape; hashed whole
        }
    }

    private static func sameStructure(_ x: StorePredicate, _ y: StorePredicate) -> Bool {
        switch (x, y) {
        case (.constant(let a), .constant(let b)): return a == b
        case (.and(let a), .and(let b)), (.or(let a), .or(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { sameStructure($0, $1) }
        case (.not(let a), .not(let b)): return sameStructure(a, b)
        case (.comparison(let a), .comparison(let b)):
            return a.operator == b.operator && a.modifier == b.modifier && a.options == b.options
                && sameStructure(a.left, b.left) && sameStructure(a.right, b.right)
        default: return false
        }
    }

    private static func sameStructure(_ x: StoreExpression, _ y: StoreExpression) -> Bool {
        switch (x, y) {
        case (.keyPath(let a), .keyPath(let b)): return a == b
        case (.constant(let a), .constant(let b)): return kind(of: a) == kind(of: b)
        case (.aggregate(let a), .aggregate(let b)): return a.count == b.count && zip(a, b).allSatisfy { sameStructure($0, $1) }
        default: return x == y
        }
    }

    /// The case of a value: constants of one case compile alike (see ``make(_:statement:encode:)``).
    private static func kind(of value: StoreValue) -> UInt8 {
        switch value {
        case .null: 0
        case .integer: 1
        case .double: 2
        case .float: 3
        case .decimal: 4
        case .string: 5
        case .boolean: 6
        case .date: 7
        case .data: 8
        case .uuid: 9
        case .uri: 10
        case .objectID: 11
        }
    }
}

extension StorePredicate {
    fileprivate var isAnd: Bool {
        if case .and = self { return true }
        return false
    }
}
