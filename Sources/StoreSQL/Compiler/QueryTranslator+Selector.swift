import StoreCore

/// `FUNCTION(receiver, 'selector', arguments…)` with the evaluator's ``FunctionSelector``: a few
/// selectors as plain SQL, the rest through `stowage_function`, which runs the evaluator's code.
/// The receiver must be a value (strings, numbers, dates): `FUNCTION` on an object or a
/// collection is `FetchError.unsupported`, as in memory.
///
/// For example, on `Quake`:
///
/// ```
/// FUNCTION(place, 'lowercaseString')                  stowage_lowercase(t0.ZPLACE)
/// FUNCTION(time, 'timeIntervalSince1970')             (t0.ZTIME + 978307200.0)
/// FUNCTION(place, 'hasPrefix:', 'Ridge')              stowage_function('hasPrefix:', 's', t0.ZPLACE, 's', ?1)
/// ```
extension QueryTranslator {
    package func functionOnReceiver(_ arguments: [StoreExpression], _ scope: QueryScope) throws -> QueryOperand {
        guard arguments.count >= 2, case .constant(.string(let selector)) = arguments[1] else {
            throw FetchError(.invalidArgument, "FUNCTION takes a receiver, a selector string and arguments")
        }
        let receiver = try operand(arguments[0], scope)
        switch receiver {
        case .object:
            throw FetchError(.unsupported, "FUNCTION(\(arguments[0]), '\(selector)') calls a method of an object, which Stowage does not do (it calls methods of strings, numbers and dates)")
        case .collection, .list:
            throw FetchError(.unsupported, "FUNCTION(\(arguments[0]), '\(selector)') calls a method of a collection, which Stowage does not do (it calls methods of strings, numbers and dates)")
        case .scalar(let value):
            let rest = try arguments.dropFirst(2).map { argument -> SQLScalar in
                let compiled = try operand(argument, scope)
                guard !compiled.isCollection else {
                    throw FetchError(.invalidArgument, "the arguments of \(selector) must be values, not collections")
                }
                return compiled.scalar
            }
            return .scalar(try selectorCall(selector, value, rest, "FUNCTION(…, '\(selector)')"))
        }
    }

    /// The value of `selector` sent to `receiver`, checked against the selector's signature.
    package func selectorCall(_ selector: String, _ receiver: SQLScalar, _ arguments: [SQLScalar], _ construct: String) throws -> SQLScalar {
        guard let signature = FunctionSelector.signatures[selector] else {
            throw FetchError(.unsupported, "FUNCTION cannot call \(selector); it calls \(FunctionSelector.names)")
        }
        guard arguments.count == signature.argumentCount else {
            throw FetchError(.invalidArgument, "\(selector) takes \(signature.argumentCount) argument(s), got \(arguments.count)")
        }
        if receiver.isNullConstant { return .null }
        let accepted: Bool
        switch receiver.kind.family {
        case .string?: accepted = signature.receivers.contains(.string)
        case .number?: accepted = signature.receivers.contains(.number)
        case .date?: accepted = signature.receivers.contains(.date)
        case nil: accepted = true
        default: accepted = false
        }
        guard accepted else { throw FetchError(.invalidArgument, "\(selector) is not a method of \(receiver.kind) values") }
        for argument in arguments where !argument.isNullConstant && argument.kind != .unknown && argument.kind != .number {
            let fits: Bool
            switch signature.argument {
            case .string?: fits = argument.kind == .string
            case .integer?: fits = argument.kind == .integer
            case .date?: fits = argument.kind == .date
            case .seconds?: fits = argument.kind.family == .number && argument.kind != .boolean
            case nil: fits = true
            }
            guard fits else { throw FetchError(.invalidArgument, "\(selector) cannot take \(argument.kind) values") }
        }
        let kind: SQLKind
        switch signature.result {
        case .string: kind = .string
        case .integer: kind = .integer
        case .double: kind = .real
        case .boolean: kind = .boolean
        case .date: kind = .date
        }
        // Plain SQL where it is the same value.
        switch (selector, receiver.kind) {
        case ("lowercaseString", .string), ("uppercaseString", .string):
            let function = selector == "lowercaseString" ? schema.dialect.lowercaseFunction : schema.dialect.uppercaseFunction
            return SQLScalar(sql: try stowageFunction(function, [receiver.sql]), kind: .string, nullable: receiver.nullable)
        case ("timeIntervalSinceReferenceDate", .date):
            return SQLScalar(sql: receiver.sql, kind: .real, nullable: receiver.nullable)
        case ("timeIntervalSince1970", .date):
            return SQLScalar(sql: "(\(receiver.sql) + 978307200.0)", kind: .real, nullable: receiver.nullable)
        default:
            break
        }
        var parts = ["'\(selector)'"]
        for value in [receiver] + arguments {
            parts.append("'\(try Self.selectorKindTag(value.kind, construct))'")
            parts.append(value.sql)
        }
        return SQLScalar(sql: try stowageFunction(schema.dialect.selectorFunction, parts), kind: kind, nullable: true)
    }

    /// How `stowage_function` reads a value of `kind`.
    private static func selectorKindTag(_ kind: SQLKind, _ construct: String) throws -> String {
        switch kind {
        case .string: return "s"
        case .integer: return "i"
        case .real, .decimal: return "r"
        case .boolean: return "b"
        case .date: return "t"
        case .number, .unknown, .null: return "?"
        case .data, .uuid, .uri, .object: throw FetchError(.invalidArgument, "\(construct) cannot take \(kind) values")
        }
    }
}
