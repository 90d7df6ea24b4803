import Foundation

/// An expression in a predicate, sort or fetch: a key path, a constant, a variable, a function
/// of other expressions, an aggregate `{a, b}` or a subquery — Core Data's `NSExpression` as a
/// value tree.
///
/// The tree is `Sendable` and `Hashable`; the in-memory evaluator and store compilers read it.
/// Users rarely build it by hand: predicates are written as format strings or with the builder.
///
/// For example:
///
/// ```swift
/// let magnitude: StoreExpression = .keyPath("magnitude")
/// let doubled: StoreExpression = .function("multiply:by:", [.keyPath("magnitude"), .constant(2)])
/// ```
public indirect enum StoreExpression: Sendable, Hashable {
    /// A fixed value.
    case constant(StoreValue)
    /// The evaluated object itself (`SELF`).
    case evaluatedObject
    /// A dotted key path from the evaluated object, which may end in a collection operator
    /// (`post.author.name`, `comments.@count`).
    case keyPath(String)
    /// A key path read from the value of another expression (`$x.name`, `FUNCTION(…).key`).
    case member(StoreExpression, String)
    /// A named variable (`$NAME`), substituted before evaluation or bound by a subquery.
    case variable(String)
    /// A collection of expressions (`{1, 2, 3}`).
    case aggregate([StoreExpression])
    /// A Core Data expression function by its selector name (`"sum:"`, `"add:to:"`, `"now"`),
    /// applied to its arguments.
    case function(String, [StoreExpression])
    /// The objects of a to-many collection that satisfy a predicate, `$variable` naming each.
    case subquery(collection: StoreExpression, variable: String, predicate: StorePredicate)
    /// `TERNARY(predicate, then, else)`.
    case conditional(StorePredicate, StoreExpression, StoreExpression)
}

extension StoreExpression: ExpressibleByStringLiteral {
    /// A string literal is a key path, as in Core Data's `NSExpression(forKeyPath:)`.
    public init(stringLiteral value: String) { self = .keyPath(value) }
}
