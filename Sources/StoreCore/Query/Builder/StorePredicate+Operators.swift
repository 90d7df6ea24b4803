/// Combining predicates without strings.
///
/// For example:
///
/// ```swift
/// let p: StorePredicate = .key("views") > 10 && !(.key("title").beginsWith("Draft") || .key("author").isNil)
/// ```
extension StorePredicate {
    /// Both predicates (chains flatten into one AND).
    public static func && (lhs: StorePredicate, rhs: StorePredicate) -> StorePredicate {
        if case .and(let parts) = lhs, parts.count > 1 { return .and(parts + [rhs]) }
        return .and([lhs, rhs])
    }

    /// Either predicate (chains flatten into one OR).
    public static func || (lhs: StorePredicate, rhs: StorePredicate) -> StorePredicate {
        if case .or(let parts) = lhs, parts.count > 1 { return .or(parts + [rhs]) }
        return .or([lhs, rhs])
    }

    /// The negation.
    public static prefix func ! (operand: StorePredicate) -> StorePredicate { .not(operand) }

    /// A key-path term, so builder expressions can start with `.key(…)` where a predicate is expected.
    public static func key(_ path: String) -> StoreTerm { .key(path) }
}
