import Foundation

/// Core Data's expression functions: aggregates (`sum:` … `stddev:`), arithmetic (`add:to:` …
/// `raise:toPower:`), numeric (`abs:` … `trunc:`), bitwise, string (`lowercase:`, `uppercase:`,
/// `canonical:`, `length:`), `random`, `randomn:`, `now()`, `CAST`, index subscripts,
/// `FUNCTION(receiver, 'selector', …)` and `indexed:by:` (which reads as its value in memory).
extension PredicateEvaluator {
    func evaluateFunction(_ name: String, _ arguments: [StoreExpression], with subject: EvaluatedValue) throws -> EvaluatedValue {
        if name == StorePredicate.syntaxErrorFunction { throw StorePredicate.literalSyntaxFailure(arguments) }
        if name == StoreExpression.indexFunctionName {
            return try indexedValue(arguments, with: subject)
        }
        if name == "FUNCTION" {
            return try functionOnReceiver(arguments, with: subject)
        }
        let args = try arguments.map { try value(of: $0, with: subject) }
        if args.isEmpty, let keyword = StoreExpression.IndexKeyword(rawValue: name) {
            throw FetchError(.invalidArgument, "\(keyword.rawValue) is an index: write collection[\(keyword.rawValue)]")
        }
        if name == "now" || name == "now:" {
            try Self.requireCount(name, args, 0)
            return .value(.date(Date()))
        }
        if let aggregate = try CollectionOperator.function(name, args.count == 1 ? args[0].elements : args) {
            return aggregate
        }
        switch name {
        case "indexed:by:", "noindex:":
            guard let first = args.first else { try Self.requireCount(name, args, 1); return .null }
            return first
        case ConstantCast.functionName:
            try Self.requireCount(name, args, 2)
            guard case .string(let type) = args[1].storeValue else {
                throw FetchError(.invalidArgument, "CAST needs a type name string")
            }
            return .value(ConstantCast.cast(args[0].storeValue, to: type) ?? .null)
        case "lowercase:", "uppercase:", "canonical:":
            try Self.requireCount(name, args, 1)
            guard case .string(let text) = args[0].storeValue else { return .null }
            switch name {
            case "lowercase:": return .value(.string(text.lowercased()))
            case "uppercase:": return .value(.string(text.uppercased()))
            default: return .value(.string(Self.canonical(text)))
            }
        case "length:":
            try Self.requireCount(name, args, 1)
            let value = args[0].storeValue
            if value.isNull { return .null }
            guard case .string(let text) = value else {
                throw FetchError(.invalidArgument, "length: needs a string, got the \(value.kindName) \(value)")
            }
            return .value(.integer(Int64(text.utf16.count)))
        case "random":
            return .value(.double(Double.random(in: 0..<1)))
        case "randomn:":
            try Self.requireCount(name, args, 1)
            let value = args[0].storeValue
            guard case .integer(let bound) = value, bound > 0 else {
                if value.isNull { return .null }
                throw FetchError(.invalidArgument, "randomn: needs a positive integer, got the \(value.kindName) \(value)")
            }
            return .value(.integer(Int64.random(in: 0..<bound)))
        default:
            break
        }
        if let unary = Self.unaryNumeric[name] {
            try Self.requireCount(name, args, 1)
            let operand = args[0].storeValue
            if operand.isNull { return .null }
            if name == "abs:", case .integer(let v) = operand, v != .min { return .value(.integer(Swift.abs(v))) }
            if name == "onesComplement:" {
                guard case .integer(let v) = operand else {
                    throw FetchError(.invalidArgument, "onesComplement: needs an integer, got the \(operand.kindName) \(operand)")
                }
                return .value(.integer(~v))
            }
            return .value(.double(unary(try Self.number(operand, name))))
        }
        if Self.binaryFunctions.contains(name) {
            try Self.requireCount(name, args, 2)
            return .value(try Arithmetic.apply(name, args[0].storeValue, args[1].storeValue))
        }
        throw FetchError(.unsupported, "the function \(name) is not one Core Data supports in fetches")
    }

    /// `canonical:`: the string folded for case and diacritics, as `[cd]` compares.
    static func canonical(_ text: String) -> String {
        ValueComparison.fold(text, [.caseInsensitive, .diacriticInsensitive])
    }

    /// `FUNCTION(receiver, 'selector', arguments…)`: a ``FunctionSelector`` method of a value.
    private func functionOnReceiver(_ arguments: [StoreExpression], with subject: EvaluatedValue) throws -> EvaluatedValue {
        guard arguments.count >= 2, case .constant(.string(let selector)) = arguments[1] else {
            throw FetchError(.invalidArgument, "FUNCTION takes a receiver, a selector string and arguments")
        }
        let receiver = try value(of: arguments[0], with: subject)
        switch receiver {
        case .object(let object as any FunctionCallReceiver):
            return try object.call(selector, arguments: try arguments.dropFirst(2).map { try self.value(of: $0, with: subject) })
        case .object:
            throw FetchError(.unsupported, "FUNCTION(\(arguments[0]), '\(selector)') calls a method of an object, which Stowage does not do (it calls methods of strings, numbers and dates)")
        case .collection:
            throw FetchError(.unsupported, "FUNCTION(\(arguments[0]), '\(selector)') calls a method of a collection, which Stowage does not do (it calls methods of strings, numbers and dates)")
        case .value(let value):
            let rest = try arguments.dropFirst(2).map { try self.value(of: $0, with: subject).storeValue }
            return .value(try FunctionSelector.apply(selector, to: value, arguments: rest))
        }
    }

    static let binaryFunctions: Set<String> = [
        "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
        "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
    ]

    static let unaryNumeric: [String: @Sendable (Double) -> Double] = [
        "abs:": { Swift.abs($0) }, "sqrt:": { $0.squareRoot() }, "log:": { Foundation.log10($0) },
        "ln:": { Foundation.log($0) }, "exp:": { Foundation.exp($0) }, "floor:": { $0.rounded(.down) },
        "ceiling:": { $0.rounded(.up) }, "trunc:": { $0.rounded(.towardZero) }, "onesComplement:": { $0 },  // (integers only, above)
    ]

    static func number(_ value: StoreValue, _ function: String) throws -> Double {
        guard let number = value.numericValue else {
            throw FetchError(.invalidArgument, "\(function) needs a number, got the \(value.kindName) \(value)")
        }
        return number
    }

    static func requireCount(_ name: String, _ args: [EvaluatedValue], _ count: Int) throws {
        guard args.count == count else {
            throw FetchError(.invalidArgument, "\(name) takes \(count) argument(s), got \(args.count)")
        }
    }
}
