import Foundation

/// Expressions print in format-string syntax: arithmetic and bitwise operators infix, functions as `name:(args)`,
/// constants as literals (or `CAST(…)` for values without a literal), key paths with keywords
/// escaped by `#`.
///
/// For example:
///
/// ```swift
/// let e: StoreExpression = .function("add:to:", [.keyPath("views"), .constant(1)])
/// print(e)   // views + 1
/// ```
extension StoreExpression: CustomStringConvertible {
    static let infixOperators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
        "bitwiseOr:with:": "|", "bitwiseXor:with:": "^", "bitwiseAnd:with:": "&", "leftshift:by:": "<<", "rightshift:by:": ">>",
    ]

    /// How tightly a primary (a key path, a literal, a call) binds: the highest ``precedence``.
    static let primaryPrecedence = 9
    /// How tightly a leading `-` or `~` binds.
    static let prefixPrecedence = 8

    public var description: String {
        switch self {
        case .constant(let value):
            return Self.literal(value)
        case .evaluatedObject:
            return "SELF"
        case .keyPath(let path):
            return Self.keyPathDescription(path)
        case .member(let base, let path):
            return base.operandDescription + "." + Self.keyPathDescription(path)
        case .variable(let name):
            return "$" + name
        case .aggregate(let items):
            return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .function(let name, let args):
            return Self.functionDescription(name, args)
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))"
        case .conditional(let predicate, let then, let otherwise):
            return "TERNARY(\(predicate), \(then), \(otherwise))"
        }
    }

    /// How tightly the printed form binds, as in the grammar: 1 for `|`, 2 for `^`, 3 for `&`,
    /// 4 for `<< >>`, 5 for `+ -`, 6 for `* /`, 7 for `**`, 8 for a leading `-` or `~` (negation,
    /// ones' complement, a negative number), 9 for everything else.
    var precedence: Int {
        switch self {
        case .function("onesComplement:", let args) where args.count == 1:
            return Self.prefixPrecedence
        case .function(let name, let args) where args.count == 2:
            if Self.printsAsNegation(name, args) { return Self.prefixPrecedence }
            switch name {
            case "bitwiseOr:with:": return 1
            case "bitwiseXor:with:": return 2
            case "bitwiseAnd:with:": return 3
            case "leftshift:by:", "rightshift:by:": return 4
            case "add:to:", "from:subtract:": return 5
            case "multiply:by:", "divide:by:": return 6
            case "raise:toPower:": return 7
            default: return Self.primaryPrecedence
            }
        case .constant(.integer(let v)):
            return v < 0 ? Self.prefixPrecedence : Self.primaryPrecedence
        case .constant(.double(let v)):
            return v.sign == .minus ? Self.prefixPrecedence : Self.primaryPrecedence
        default:
            return Self.primaryPrecedence
        }
    }

    /// The description, parenthesized when it binds less tightly than `minimum`.
    func operandDescription(binding minimum: Int) -> String {
        precedence < minimum ? "(\(description))" : description
    }

    /// The description as the base of `.key`: parenthesized unless it is a primary.
    var operandDescription: String { operandDescription(binding: Self.primaryPrecedence) }

    /// `multiply:by:(-1, x)` prints as `-x`, unless `x` is a number (`-5` would read back as the
    /// constant -5).
    private static func printsAsNegation(_ name: String, _ args: [StoreExpression]) -> Bool {
        guard name == "multiply:by:", args.count == 2, args[0] == .constant(.integer(-1)) else { return false }
        switch args[1] {
        case .constant(.integer), .constant(.double): return false
        default: return true
        }
    }

    private static func functionDescription(_ name: String, _ args: [StoreExpression]) -> String {
        if name == indexFunctionName, args.count == 2 {
            let index = args[1].symbolicIndex?.rawValue ?? args[1].description
            return "\(args[0].operandDescription)[\(index)]"
        }
        if let keyword = IndexKeyword(rawValue: name), args.isEmpty { return keyword.rawValue }
        if name == "onesComplement:", args.count == 1 { return "~" + args[0].operandDescription(binding: prefixPrecedence) }
        if args.count == 2, let symbol = infixOperators[name] {
            if printsAsNegation(name, args) { return "-" + args[1].operandDescription(binding: prefixPrecedence) }
            // Every level is left-associative: a right operand of the same level needs parentheses.
            let level = StoreExpression.function(name, args).precedence
            return "\(args[0].operandDescription(binding: level)) \(symbol) \(args[1].operandDescription(binding: level + 1))"
        }
        let list = args.map(\.description).joined(separator: ", ")
        switch name {
        case ConstantCast.functionName where args.count == 2: return "CAST(\(list))"
        case "FUNCTION": return "FUNCTION(\(list))"
        default: return "\(name)(\(list))"
        }
    }

    static func keyPathDescription(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { component in
            let key = String(component)
            if key.hasPrefix("@") { return key }
            if PredicateParser.reservedWords.contains(key.uppercased()) { return "#" + key }
            return key
        }.joined(separator: ".")
    }

    /// A constant as format-string text that parses back to the same value.
    static func literal(_ value: StoreValue) -> String {
        switch value {
        case .null: return "NULL"
        case .boolean(let v): return v ? "TRUE" : "FALSE"
        case .integer(let v): return String(v)
        case .double(let v):
            if v.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
            if v.isInfinite { return v < 0 ? "-1e999" : "1e999" }
            return String(v)
        case .string(let v): return quoted(v)
        case .date(let v): return "CAST(\(literal(.double(v.timeIntervalSinceReferenceDate))), \"NSDate\")"
        case .float(let v): return "CAST(\(quoted(String(v))), \"Float\")"
        case .decimal(let v): return "CAST(\(quoted("\(v)")), \"NSDecimalNumber\")"
        case .uuid(let v): return "CAST(\(quoted(v.uuidString)), \"NSUUID\")"
        case .uri(let v): return "CAST(\(quoted(v.absoluteString)), \"NSURL\")"
        case .data(let v): return "CAST(\(quoted(v.base64EncodedString())), \"NSData\")"
        case .objectID(let v): return "CAST(\(quoted(v.uriRepresentation.absoluteString)), \"NSManagedObjectID\")"
        }
    }

    /// A double-quoted string literal with `\` escapes.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\0": result += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
