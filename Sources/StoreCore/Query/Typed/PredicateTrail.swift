/// Where a `#Predicate` node stands in its expression, for error messages: the nodes being
/// translated, outermost first, each with which child of its parent it is —
/// `Conjunction.lhs › Equal.lhs` for the left side of an `==` on the left of an `&&`.
///
/// Entering a node costs an append; the children's names (Foundation's stored properties:
/// `lhs`, `rhs`, `wrapped`, …) are looked up with `Mirror` only when a failure is placed.
///
/// For example:
///
/// ```swift
/// var trail = PredicateTrail()
/// trail.enter(predicate.expression)
/// throw trail.placing(FetchError(.untranslatablePredicate, "#Predicate: …"))   // "… (at the whole predicate)"
/// ```
struct PredicateTrail {
    private struct Step {
        let node: Any
        let type: ObjectIdentifier
        /// How many earlier children of the parent had this node's type (which of them it is).
        let ordinal: Int
        /// The types of the children entered so far.
        var childTypes: [ObjectIdentifier] = []
    }

    private var steps: [Step] = []
    /// Whether a failure has been placed (only the innermost node says where it stands).
    private var placed = false

    mutating func enter(_ node: Any) {
        let type = ObjectIdentifier(Swift.type(of: node))
        var ordinal = 0
        if let last = steps.indices.last {
            ordinal = steps[last].childTypes.count { $0 == type }
            steps[last].childTypes.append(type)
        }
        steps.append(Step(node: node, type: type, ordinal: ordinal))
    }

    mutating func leave() { steps.removeLast() }

    /// `error` with where the current node stands, the first time a failure passes.
    mutating func placing(_ error: FetchError) -> FetchError {
        guard !placed else { return error }
        placed = true
        return FetchError(error.code, "\(error.message) (at \(position))")
    }

    /// `Conjunction.lhs › Equal.lhs`, or "the whole predicate" for the outermost node.
    var position: String {
        guard steps.count > 1 else { return "the whole predicate" }
        return (1..<steps.count).map { index in
            let parent = steps[index - 1].node
            let construct = PredicateTranslator.constructName(of: Swift.type(of: parent))
            guard let label = label(of: steps[index], in: parent) else { return construct }
            return "\(construct).\(label)"
        }.joined(separator: " › ")
    }

    /// The name of the stored property of `parent` holding the step's node.
    private func label(of step: Step, in parent: Any) -> String? {
        let labels = Mirror(reflecting: parent).children.compactMap { child in
            ObjectIdentifier(Swift.type(of: child.value)) == step.type ? child.label : nil
        }
        guard !labels.isEmpty else { return nil }
        return labels[min(step.ordinal, labels.count - 1)]
    }
}
