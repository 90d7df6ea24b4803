import Foundation
import StoreCore

/// Turns the `NSPredicate` and `NSExpression` objects archived in a compiled model (fetch
/// request templates, partial index predicates, validation predicates, derivation
/// expressions) back into predicate format text, which ``/StoreCore/StorePredicate`` then parses — so a
/// compiled model's predicates mean what the same model's XML says.
///
/// Read: comparison predicates (`NSComparisonPredicate` with its `NS…PredicateOperator`:
/// `NSOperatorType`, `NSModifier` ANY/ALL, `NSFlags` `[c]`/`[d]`/`[n]`), compound predicates
/// (`NSCompoundPredicateType` 0 NOT, 1 AND, 2 OR), `TRUEPREDICATE`/`FALSEPREDICATE`;
/// constant, key path, `SELF`, variable, aggregate and function expressions. Anything else
/// throws, and the caller leaves the template (or index, or rule) out with a warning.
///
/// For example, the archived form of `lastName LIKE "Duck*"`:
///
/// ```swift
/// try ArchivedPredicate(graph: graph).format(request["NSPredicate"])   // "lastName LIKE \"Duck*\""
/// ```
struct ArchivedPredicate {
    /// A predicate or expression this reader does not translate.
    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    /// The deepest nesting of predicates and expressions read.
    static let maxDepth = 32

    let graph: KeyedArchiveGraph

    /// The predicate a field refers to, as format text.
    func format(_ field: PropertyListValue?) throws -> String {
        try predicate(field, depth: 0)
    }

    /// The expression a field refers to, as format text (`now()`, `children.@count`,
    /// `lowercase:(title)`).
    func expression(_ field: PropertyListValue?) throws -> String {
        try expression(field, depth: 0)
    }

    private func instance(_ field: PropertyListValue?, depth: Int) throws -> KeyedArchiveGraph.Instance {
        guard depth <= Self.maxDepth else { throw Unsupported(description: "the predicate nests deeper than \(Self.maxDepth) levels") }
        guard let instance = try graph.instance(field) else { throw Unsupported(description: "a predicate or expression is missing") }
        return instance
    }

    private func predicate(_ field: PropertyListValue?, depth: Int) throws -> String {
        let object = try instance(field, depth: depth)
        switch object.className {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let parts = try (graph.members(object["NSSubpredicates"]) ?? []).map { try "(" + predicate(.uid($0), depth: depth + 1) + ")" }
            switch object["NSCompoundPredicateType"]?.integerValue {
            case 0:
                guard parts.count == 1, let only = parts.first else { throw Unsupported(description: "a NOT predicate has \(parts.count) subpredicates") }
                return "NOT " + only
            case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            case let other: throw Unsupported(description: "compound predicate type \(other.map(String.init) ?? "missing")")
            }
        case "NSComparisonPredicate":
            let comparison = try self.comparison(object, depth: depth)
            let modifier = comparison.modifier == 1 ? "ALL " : comparison.modifier == 2 ? "ANY " : ""
            return "\(modifier)\(comparison.left) \(comparison.symbol)\(comparison.options) \(comparison.right)"
        default:
            throw Unsupported(description: "predicate class \(object.className)")
        }
    }

    /// The parts of an `NSComparisonPredicate`.
    private func comparison(_ object: KeyedArchiveGraph.Instance, depth: Int) throws
        -> (left: String, right: String, type: Int64, symbol: String, modifier: Int64, options: String, rightConstant: Any?)
    {
        let operation = try instance(object["NSPredicateOperator"], depth: depth + 1)
        let type = operation["NSOperatorType"]?.integerValue ?? -1
        let symbols: [Int64: String] = [
            0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH", 9: "ENDSWITH",
            10: "IN", 99: "CONTAINS", 100: "BETWEEN",
        ]
        guard let symbol = symbols[type] else { throw Unsupported(description: "comparison operator \(type) (\(operation.className))") }
        let flags = operation["NSFlags"]?.integerValue ?? 0
        var options = ""
        if flags & 0x1 != 0 { options += "c" }
        if flags & 0x2 != 0 { options += "d" }
        if flags & 0x4 != 0 { options += "n" }
        let modifier = operation["NSModifier"]?.integerValue ?? object["NSModifier"]?.integerValue ?? 0
        let right = try instance(object["NSRightExpression"], depth: depth + 1)
        let rightConstant = right.className == "NSConstantValueExpression" ? try graph.value(right["NSConstantValue"]) : nil
        return (
            try expression(object["NSLeftExpression"], depth: depth + 1), try expression(.uid(right.reference), depth: depth + 1),
            type, symbol, modifier, options.isEmpty ? "" : "[\(options)]", rightConstant
        )
    }

    private func expression(_ field: PropertyListValue?, depth: Int) throws -> String {
        let object = try instance(field, depth: depth)
        switch object.className {
        case "NSConstantValueExpression":
            return try constant(graph.value(object["NSConstantValue"]))
        case "NSSelfExpression":
            return "SELF"
        case "NSVariableExpression":
            guard let name = try graph.string(object["NSVariable"]) else { throw Unsupported(description: "a variable without a name") }
            return "$" + name
        case "NSKeyPathSpecifierExpression":
            guard let path = try graph.string(object["NSKeyPath"]) else { throw Unsupported(description: "a key path without a path") }
            return path
        case "NSKeyPathExpression", "NSFunctionExpression":
            return try function(object, depth: depth)
        case "NSAggregateExpression":
            let members = try graph.members(object["NSCollection"]) ?? []
            return "{" + (try members.map { try expression(.uid($0), depth: depth + 1) }).joined(separator: ", ") + "}"
        default:
            throw Unsupported(description: "expression class \(object.className)")
        }
    }

    /// A function expression: `valueForKey:`/`valueForKeyPath:` on `SELF` (or another operand)
    /// is a key path; any other selector is written `selector(arguments)`.
    private func function(_ object: KeyedArchiveGraph.Instance, depth: Int) throws -> String {
        if let path = try graph.string(object["NSKeyPath"]) { return path }
        let selector = try graph.string(object["NSSelectorName"]) ?? ""
        let arguments = try (graph.members(object["NSArguments"]) ?? []).map { try expression(.uid($0), depth: depth + 1) }
        let operand = try object["NSOperand"].map { try expression($0, depth: depth + 1) }
        if selector == "valueForKey:" || selector == "valueForKeyPath:" {
            guard arguments.count == 1, let path = arguments.first else { throw Unsupported(description: "\(selector) with \(arguments.count) arguments") }
            return operand == nil || operand == "SELF" ? path : "\(operand ?? "").\(path)"
        }
        guard !selector.isEmpty else { throw Unsupported(description: "a function expression without a selector") }
        if let operand, operand != "SELF" {
            // A method of a value or variable (a migration's `$manager`, `$entityPolicy`).
            return "FUNCTION(" + ([operand, Self.quoted(selector)] + arguments).joined(separator: ", ") + ")"
        }
        return "\(selector)(\(arguments.joined(separator: ", ")))"
    }

    /// A constant as predicate format text.
    private func constant(_ value: Any?) throws -> String {
        switch value {
        case nil, is NSNull: return "nil"
        case let bool as Bool: return bool ? "TRUE" : "FALSE"
        case let integer as Int: return String(integer)
        case let integer as Int64: return String(integer)
        case let real as Double: return real.isFinite ? "\(real)" : "nil"
        case let decimal as Decimal: return "\(decimal)"
        case let string as String: return Self.quoted(string)
        case let date as Date: return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let array as [Any]: return "{" + (try array.map(constant)).joined(separator: ", ") + "}"
        case let set as Set<AnyHashable>: return try constant(set.map(\.base))
        default: throw Unsupported(description: "a constant of type \(type(of: value ?? ""))")
        }
    }

    static func quoted(_ string: String) -> String {
        "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    // MARK: Validation predicates

    /// The rule an attribute's validation predicate stands for: `SELF >= x` / `SELF <= x`
    /// (minimum/maximum), `length >= n` / `length <= n` (lengths of strings and data),
    /// `SELF MATCHES "…"` (pattern); `nil` for any other predicate.
    func validationRule(_ field: PropertyListValue?, type: AttributeType) throws -> AttributeValidationRule? {
        let object = try instance(field, depth: 0)
        guard object.className == "NSComparisonPredicate" else { return nil }
        let comparison = try comparison(object, depth: 0)
        guard comparison.modifier == 0 else { return nil }
        let isMinimum = comparison.type == 2 || comparison.type == 3
        let isMaximum = comparison.type == 0 || comparison.type == 1
        switch (comparison.left, comparison.rightConstant) {
        case ("SELF", let pattern as String) where comparison.type == 6:
            return .pattern(pattern)
        case ("length", let length as Int) where isMinimum || isMaximum:
            return isMinimum ? .minimumLength(length) : .maximumLength(length)
        case ("SELF", let bound?) where isMinimum || isMaximum:
            let value: StoreValue?
            switch bound {
            case let date as Date: value = .date(date)
            case let integer as Int: value = type.coerce(.integer(Int64(integer))) ?? .integer(Int64(integer))
            case let real as Double: value = type.coerce(.double(real)) ?? .double(real)
            case let decimal as Decimal: value = .decimal(decimal)
            default: value = nil
            }
            guard let value else { return nil }
            return isMinimum ? .minimum(value) : .maximum(value)
        default:
            return nil
        }
    }
}
