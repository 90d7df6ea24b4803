/// How deep a predicate or expression tree goes, measured without recursion, so that a tree of
/// any depth can be measured (and refused) before anything walks it recursively.
///
/// For example:
///
/// ```swift
/// try StorePredicate(format: "a == 1 + 2 + 3").treeDepth   // 5: comparison, three functions, constant
/// ```
extension StorePredicate {
    /// The number of nodes on the longest path from the root to a leaf.
    public var treeDepth: Int { TreeDepth.measure(.predicate(self)) }
}

extension StorePredicate {
    /// Refuses a predicate deeper than a parsed one may be (a tree built in code can be any
    /// depth), before anything walks it recursively.
    package func checkTreeDepth() throws(FetchError) {
        let depth = treeDepth
        guard depth <= PredicateParser.maximumTreeDepth else {
            throw FetchError(.unsupported, "the predicate is \(depth) levels deep; at most \(PredicateParser.maximumTreeDepth)")
        }
    }
}

extension StoreExpression {
    /// The number of nodes on the longest path from the root to a leaf.
    public var treeDepth: Int { TreeDepth.measure(.expression(self)) }
}

private enum TreeDepth {
    enum Node {
        case predicate(StorePredicate)
        case expression(StoreExpression)
    }

    static func measure(_ root: Node) -> Int {
        var deepest = 0
        var pending: [(Node, Int)] = [(root, 1)]
        while let (node, depth) = pending.popLast() {
            deepest = max(deepest, depth)
            for child in children(of: node) { pending.append((child, depth + 1)) }
        }
        return deepest
    }

    static func children(of node: Node) -> [Node] {
        switch node {
        case .predicate(let predicate):
            switch predicate {
            case .constant: return []
            case .comparison(let comparison): return [.expression(comparison.left), .expression(comparison.right)]
            case .and(let parts), .or(let parts): return parts.map { .predicate($0) }
            case .not(let inner): return [.predicate(inner)]
            }
        case .expression(let expression):
            switch expression {
            case .constant, .evaluatedObject, .keyPath, .variable: return []
            case .member(let base, _): return [.expression(base)]
            case .aggregate(let items), .function(_, let items): return items.map { .expression($0) }
            case .subquery(let collection, _, let predicate): return [.expression(collection), .predicate(predicate)]
            case .conditional(let predicate, let then, let otherwise): return [.predicate(predicate), .expression(then), .expression(otherwise)]
            }
        }
    }
}
