import Foundation

extension PredicateParser {
    /// Words that are never key paths unless escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "BETWEEN", "NULL", "NIL", "TRUE", "FALSE", "YES", "NO", "SELF", "TRUEPREDICATE",
        "FALSEPREDICATE", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "FIRST", "LAST", "SIZE",
    ]

    // MARK: Bitwise operators

    /// The binary operators looser than `+ -`, loosest first (C's order): `|`, `^`, `&`, then
    /// the shifts `<< >>`. Each level is left-associative.
    static let bitwiseLevels: [[(symbol: String, function: String)]] = [
        [("|", "bitwiseOr:with:")],
        [("^", "bitwiseXor:with:")],
        [("&", "bitwiseAnd:with:")],
        [("<<", "leftshift:by:"), (">>", "rightshift:by:")],
    ]

    /// An expression: `|` chains of `^` chains of `&` chains of shifts of sums.
    mutating func parseExpression() throws(PredicateSyntaxError) -> StoreExpression {
        try parseBitwise(level: 0)
    }

    private mutating func parseBitwise(level: Int) throws(PredicateSyntaxError) -> StoreExpression {
        guard level < Self.bitwiseLevels.count else { return try parseSum() }
        var left = try parseBitwise(level: level + 1)
        while let op = Self.bitwiseLevels[level].first(where: { current.isSymbol($0.symbol) }) {
            advance()
            left = .function(op.function, [left, try parseBitwise(level: level + 1)])
        }
        return left
    }

    // MARK: Arithmetic

    mutating func parseSum() throws(PredicateSyntaxError) -> StoreExpression {
        var left = try parseTerm()
        while true {
            if accept("+") {
                left = .function("add:to:", [left, try parseTerm()])
            } else if accept("-") {
                left = .function("from:subtract:", [left, try parseTerm()])
            } else {
                return left
            }
        }
    }

    mutating func parseTerm() throws(PredicateSyntaxError) -> StoreExpression {
        var left = try parsePower()
        while true {
            if accept("*") {
                left = .function("multiply:by:", [left, try parsePower()])
            } else if accept("/") {
                left = .function("divide:by:", [left, try parsePower()])
            } else {
                return left
            }
        }
    }

    mutating func parsePower() throws(PredicateSyntaxError) -> StoreExpression {
        var left = try parseUnary()
        while accept("**") { left = .function("raise:toPower:", [left, try parseUnary()]) }
        return left
    }

    mutating func parseUnary() throws(PredicateSyntaxError) -> StoreExpression {
        if accept("~") {
            let operand = try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in try p.parseUnary() }
            return .function("onesComplement:", [operand])
        }
        guard current.isSymbol("-") else { return try parsePostfix() }
        advance()
        // A minus directly before an integer literal is part of it, so Int64.min fits.
        if case .integer(let text) = current.kind, !peek(1).isSymbol("."), !peek(1).isSymbol("**") {
            let token = current
            advance()
            return .constant(try integerLiteral("-" + text, at: token.offset))
        }
        let operand = try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in try p.parseUnary() }
        return Self.negated(operand)
    }

    /// `-operand`: a negated numeric constant, or `multiply:by:(-1, operand)`.
    static func negated(_ operand: StoreExpression) -> StoreExpression {
        switch operand {
        case .constant(.integer(let v)) where v != .min: return .constant(.integer(-v))
        case .constant(.double(let v)): return .constant(.double(-v))
        default: return .function("multiply:by:", [.constant(.integer(-1)), operand])
        }
    }

    // MARK: Member access

    mutating func parsePostfix() throws(PredicateSyntaxError) -> StoreExpression {
        var expression = try parsePrimary()
        while true {
            if current.isSymbol("[") {
                expression = .index(expression, try parseIndex())
                continue
            }
            guard accept(".") else { return expression }
            let key: String
            switch current.kind {
            case .word(let w), .escapedWord(let w): key = w
            case .collectionOperator(let w): key = "@" + w
            case .specifier("K"):
                // `moods.%K`, `$x.%K`, `%K.%K`: the argument's key path continues this one.
                let offset = current.offset
                advance()
                guard case .keyPath(let path) = try argument("K", at: offset) else {
                    throw PredicateSyntaxError(.wrongArgumentType, "%K expects a key path", format: format, offset: offset)
                }
                expression = Self.member(of: expression, path)
                continue
            default: throw unexpected("a key after '.'")
            }
            advance()
            expression = Self.member(of: expression, key)
        }
    }

    /// `[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]` after a collection.
    mutating func parseIndex() throws(PredicateSyntaxError) -> StoreExpression {
        advance()
        let index: StoreExpression
        if case .word(let word) = current.kind, let keyword = StoreExpression.IndexKeyword(rawValue: word.uppercased()) {
            advance()
            index = .indexKeyword(keyword)
        } else if current.kind == .end || current.isSymbol("]") {
            throw unexpected("an index (FIRST, LAST, SIZE or an integer)")
        } else {
            index = try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in try p.parseExpression() }
        }
        try expect("]", "to close the index")
        return index
    }

    static func member(of base: StoreExpression, _ key: String) -> StoreExpression {
        switch base {
        case .keyPath(let path): .keyPath(path + "." + key)
        case .evaluatedObject: .keyPath(key)
        case .member(let inner, let path): .member(inner, path + "." + key)
        default: .member(base, key)
        }
    }

    // MARK: Primaries

    mutating func parsePrimary() throws(PredicateSyntaxError) -> StoreExpression {
        let token = current
        switch token.kind {
        case .integer(let text):
            advance()
            return .constant(try integerLiteral(text, at: token.offset))
        case .real(let text):
            advance()
            guard let value = Double(text) else {
                throw PredicateSyntaxError(.invalidNumber, "malformed number '\(text)'", format: format, offset: token.offset)
            }
            return .constant(.double(value))
        case .string(let text):
            advance()
            return .constant(.string(text))
        case .variable(let name):
            advance()
            return .variable(name)
        case .specifier(let spec):
            advance()
            return try argument(spec, at: token.offset)
        case .escapedWord(let name):
            advance()
            return .keyPath(name)
        case .collectionOperator(let name):
            advance()
            return .keyPath("@" + name)
        case .symbol("{"):
            return try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in try p.parseAggregate() }
        case .symbol("("):
            return try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in
                p.advance()
                let inner = try p.parseExpression()
                try p.expect(")", "to close the parenthesis")
                return inner
            }
        case .word(let word):
            return try parseWord(word)
        default:
            throw unexpected("an expression")
        }
    }

    mutating func parseWord(_ word: String) throws(PredicateSyntaxError) -> StoreExpression {
        let upper = word.uppercased()
        switch upper {
        case "TRUE", "YES":
            advance()
            return .constant(.boolean(true))
        case "FALSE", "NO":
            advance()
            return .constant(.boolean(false))
        case "NULL", "NIL":
            advance()
            return .constant(.null)
        case "SELF":
            advance()
            return .evaluatedObject
        case "SUBQUERY", "FUNCTION", "CAST", "TERNARY":
            guard peek(1).isSymbol("(") else { throw unexpected("an expression (\(upper) needs '(' after it)") }
            return try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in try p.parseSpecialCall(upper) }
        default:
            break
        }
        guard !Self.reservedWords.contains(upper) else {
            throw unexpected("an expression (escape a key named like a keyword as #\(word))")
        }
        if peek(1).isSymbol(":") || peek(1).isSymbol("(") {
            return try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in try p.parseFunctionCall() }
        }
        advance()
        return .keyPath(word)
    }

    /// `{a, b, …}`.
    mutating func parseAggregate() throws(PredicateSyntaxError) -> StoreExpression {
        advance()
        var items: [StoreExpression] = []
        if accept("}") { return .aggregate(items) }
        repeat {
            items.append(try parseExpression())
        } while accept(",")
        try expect("}", "to close the aggregate")
        return .aggregate(items)
    }

    /// `now()`, `sum:(x)`, `add:to:(a, b)`, `indexed:by:(location, "byLocation")`.
    mutating func parseFunctionCall() throws(PredicateSyntaxError) -> StoreExpression {
        var name = ""
        while case .word(let part) = current.kind {
            advance()
            if accept(":") {
                name += part + ":"
            } else if name.isEmpty {
                name = part
                break
            } else {
                throw unexpected("':' in the function name \(name)\(part)")
            }
        }
        try expect("(", "to open the arguments of \(name)")
        let args = try parseArguments(closing: "the arguments of \(name)")
        if name == ConstantCast.functionName, args.count == 2 { return ConstantCast.fold(args[0], args[1]) }
        return .function(name, args)
    }

    /// Comma-separated expressions up to and including `)`.
    mutating func parseArguments(closing context: String) throws(PredicateSyntaxError) -> [StoreExpression] {
        var args: [StoreExpression] = []
        if accept(")") { return args }
        repeat {
            args.append(try parseExpression())
        } while accept(",")
        try expect(")", "to close \(context)")
        return args
    }

    /// `SUBQUERY(collection, $x, predicate)`, `FUNCTION(receiver, 'selector:', args…)`,
    /// `CAST(value, 'Type')`, `TERNARY(predicate, then, else)`.
    mutating func parseSpecialCall(_ keyword: String) throws(PredicateSyntaxError) -> StoreExpression {
        advance()
        advance()
        switch keyword {
        case "SUBQUERY":
            let collection = try parseExpression()
            try expect(",", "after the SUBQUERY collection")
            guard case .variable(let name) = current.kind else { throw unexpected("a $variable naming each SUBQUERY element") }
            advance()
            try expect(",", "after the SUBQUERY variable")
            let predicate = try parseOr()
            try expect(")", "to close SUBQUERY")
            return .subquery(collection: collection, variable: name, predicate: predicate)
        case "TERNARY":
            let predicate = try parseOr()
            try expect(",", "after the TERNARY condition")
            let then = try parseExpression()
            try expect(",", "after the TERNARY value if true")
            let otherwise = try parseExpression()
            try expect(")", "to close TERNARY")
            return .conditional(predicate, then, otherwise)
        case "CAST":
            let startOffset = current.offset
            let args = try parseArguments(closing: "CAST")
            guard args.count == 2 else {
                throw PredicateSyntaxError(.unexpectedToken, "CAST takes a value and a type name", format: format, offset: startOffset)
            }
            return ConstantCast.fold(args[0], args[1])
        default:
            return try parseFunctionCallOnReceiver()
        }
    }

    /// `FUNCTION(receiver, 'selector:', arguments…)` after `FUNCTION(`: the selector must be one
    /// ``FunctionSelector`` knows, with as many arguments as it has colons.
    mutating func parseFunctionCallOnReceiver() throws(PredicateSyntaxError) -> StoreExpression {
        let receiver = try parseExpression()
        try expect(",", "after the FUNCTION receiver (FUNCTION takes a receiver, a selector string and arguments)")
        let selectorToken = current
        let selectorExpression = try parseExpression()
        guard case .constant(.string(let selector)) = selectorExpression else {
            throw PredicateSyntaxError(
                .unexpectedToken, "expected a selector string such as 'lowercaseString', found \(selectorToken.display)",
                format: format, offset: selectorToken.offset)
        }
        // A migration's value expressions call any method of its manager and entity policy.
        let argumentCount: Int
        if case .variable(let name) = receiver, name == "manager" || name == "entityPolicy" {
            argumentCount = selector.filter { $0 == ":" }.count
        } else if let signature = FunctionSelector.signatures[selector] {
            argumentCount = signature.argumentCount
        } else {
            throw PredicateSyntaxError(
                .unexpectedToken, "expected a FUNCTION selector Stowage can call (\(FunctionSelector.names)), found '\(selector)'",
                format: format, offset: selectorToken.offset)
        }
        var args = [receiver, selectorExpression]
        while accept(",") { args.append(try parseExpression()) }
        guard args.count - 2 == argumentCount else {
            throw unexpected(
                args.count - 2 < argumentCount
                    ? "',' and \(argumentCount - (args.count - 2)) more argument(s) for \(selector)"
                    : "')' after the \(argumentCount) argument(s) of \(selector)")
        }
        try expect(")", "to close FUNCTION")
        return .function("FUNCTION", args)
    }

    // MARK: Literals and arguments

    func integerLiteral(_ text: String, at offset: Int) throws(PredicateSyntaxError) -> StoreValue {
        let negative = text.hasPrefix("-")
        let body = negative ? String(text.dropFirst()) : text
        let radix: Int
        let digits: Substring
        switch body.prefix(2) {
        case "0x": (radix, digits) = (16, body.dropFirst(2))
        case "0o": (radix, digits) = (8, body.dropFirst(2))
        case "0b": (radix, digits) = (2, body.dropFirst(2))
        default: (radix, digits) = (10, Substring(body))
        }
        if let value = Int64((negative ? "-" : "") + digits, radix: radix) { return .integer(value) }
        if radix == 10, let value = Double(text) { return .double(value) }
        throw PredicateSyntaxError(.invalidNumber, "'\(body)' is not a valid integer of 64 bits", format: format, offset: offset)
    }

    mutating func argument(_ spec: String, at offset: Int) throws(PredicateSyntaxError) -> StoreExpression {
        guard argumentIndex < arguments.count else {
            throw PredicateSyntaxError(
                .missingArgument, "%\(spec) is argument \(argumentIndex + 1) but only \(arguments.count) were given",
                format: format, offset: offset)
        }
        let value = arguments[argumentIndex]
        argumentIndex += 1
        switch PredicateArgument.expression(for: value, specifier: spec) {
        case .success(let expression): return expression
        case .failure(let mismatch):
            throw PredicateSyntaxError(.wrongArgumentType, mismatch.message, format: format, offset: offset)
        }
    }
}
