import Foundation

/// Evaluates predicates and expressions in memory, with Core Data's semantics: NULL equals only
/// NULL and orders before nothing, numbers of any kind compare by value, `[c]`/`[d]` fold
/// strings, key paths through to-many relationships yield collections that `ANY`/`ALL`, `IN`,
/// `CONTAINS`, collection operators and aggregate functions read.
package struct PredicateEvaluator {
    /// Values of `$variables` (set by callers for templates, and by `SUBQUERY` for its element).
    package var variables: [String: EvaluatedValue] = [:]
    let regularExpressions = RegularExpressionCache()

    package init() {}

    /// Whether `source` satisfies `predicate`.
    package func evaluate(_ predicate: StorePredicate, on source: any PredicateEvaluationSource) throws -> Bool {
        try evaluate(predicate, with: .object(source))
    }

    /// The value of an expression for `source`.
    package func value(of expression: StoreExpression, on source: any PredicateEvaluationSource) throws -> EvaluatedValue {
        try value(of: expression, with: .object(source))
    }

    /// Whether the predicate holds with `subject` as `SELF` (an object, or any value inside a subquery).
    func evaluate(_ predicate: StorePredicate, with subject: EvaluatedValue) throws -> Bool {
        switch predicate {
        case .constant(let value):
            return value
        case .and(let parts):
            for part in parts where try !evaluate(part, with: subject) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, with: subject) { return true }
            return false
        case .not(let inner):
            return try !evaluate(inner, with: subject)
        case .comparison(let comparison):
            return try evaluate(comparison, with: subject)
        }
    }

    /// The value of the expression with `subject` as `SELF`.
    func value(of expression: StoreExpression, with subject: EvaluatedValue) throws -> EvaluatedValue {
        switch expression {
        case .constant(let value):
            return .value(value)
        case .evaluatedObject:
            return subject
        case .keyPath(let path):
            return try value(ofKeyPath: path, from: subject)
        case .member(let base, let path):
            return try value(ofKeyPath: path, from: value(of: base, with: subject))
        case .variable(let name):
            guard let bound = variables[name] else {
                throw FetchError(.unboundVariable, "variable $\(name) has no value; substitute it before fetching")
            }
            return bound
        case .aggregate(let items):
            return .collection(try items.map { try value(of: $0, with: subject) })
        case .function(let name, let args):
            return try evaluateFunction(name, args, with: subject)
        case .subquery(let collection, let variable, let predicate):
            var inner = self
            var matches: [EvaluatedValue] = []
            for element in try value(of: collection, with: subject).elements {
                inner.variables[variable] = element
                if try inner.evaluate(predicate, with: element) { matches.append(element) }
            }
            return .collection(matches)
        case .conditional(let predicate, let then, let otherwise):
            return try value(of: try evaluate(predicate, with: subject) ? then : otherwise, with: subject)
        }
    }

    // MARK: Key paths

    private func value(ofKeyPath path: String, from start: EvaluatedValue) throws -> EvaluatedValue {
        // Most key paths are one plain key: skip splitting (this runs once per object and key).
        if !path.utf8.contains(UInt8(ascii: ".")), path.utf8.first != UInt8(ascii: "@"), path != "self", path != "SELF" {
            return try step(start, path)
        }
        return try follow(path.split(separator: ".").map(String.init)[...], from: start)
    }

    /// Follows key path components; a collection operator (`@sum`) applies the rest of the path
    /// to each element and then aggregates.
    private func follow(_ components: ArraySlice<String>, from start: EvaluatedValue) throws -> EvaluatedValue {
        var current = start
        var rest = components
        while let key = rest.first {
            rest = rest.dropFirst()
            if key == "self" || key == "SELF" { continue }
            if key.hasPrefix("@") {
                let elements = current.elements
                let mapped = rest.isEmpty ? elements : try elements.map { try follow(rest, from: $0) }
                return try CollectionOperator.apply(key, to: mapped)
            }
            current = try step(current, key)
        }
        return current
    }

    private func step(_ value: EvaluatedValue, _ key: String) throws -> EvaluatedValue {
        switch value {
        case .object(let object):
            return try object.evaluationValue(forKey: key)
        case .collection(let items):
            return .collection(try items.map { try step($0, key) }.flatMap { element -> [EvaluatedValue] in
                if case .collection(let nested) = element { return nested }
                return [element]
            })
        case .value:
            return .null
        }
    }
}
