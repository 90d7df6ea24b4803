/// A recursive-descent parser for Core Data's predicate format-string grammar.
///
/// Precedence, loosest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparison, `|`, `^`, `&`,
/// `<< >>`, `+ -`, `* /`, `**`, unary `-` and `~`, `.key` member access and `[index]`. `AND` and `OR` chains become one n-ary node; parentheses
/// keep their own node, so printing and parsing again gives the same tree.
/// Arguments (`%@`, `%K`…) are substituted as they are met; `$NAME` variables stay in the tree.
struct PredicateParser {
    /// How deeply parentheses, NOT, unary minus, aggregates and functions may nest.
    static let maximumDepth = 48
    /// How deep the tree of a whole predicate or expression may be: each operator of a chain
    /// (`a + b + c`, `x & y & z`) is a level, as the tree nests one node per operator. Walking
    /// a tree recursively (evaluating, folding constants, printing, compiling to SQL) is safe
    /// far beyond this on any thread's stack; a longer chain is refused as too deep.
    static let maximumTreeDepth = 256

    let format: String
    var tokens: [PredicateToken]
    var index = 0
    let arguments: [Any]
    var argumentIndex = 0
    var depth = 0
    /// Results of parenthesized predicates by the index of their `(` token. A parenthesis is
    /// tried as a predicate and then as an expression; without this, predicates nested inside
    /// expressions inside parentheses (`(TERNARY((TERNARY(…` ) would be re-parsed exponentially.
    var parenthesized: [Int: ParenthesizedResult] = [:]

    enum ParenthesizedResult {
        case parsed(StorePredicate, end: Int, argumentIndex: Int)
        case failed(PredicateSyntaxError)
    }

    init(format: String, arguments: [Any]) throws(PredicateSyntaxError) {
        self.format = format
        self.tokens = try PredicateLexer.tokenize(format)
        self.arguments = arguments
    }

    /// Parses a whole predicate, requiring every token and every argument to be used.
    static func parsePredicate(_ format: String, arguments: [Any]) throws(PredicateSyntaxError) -> StorePredicate {
        var parser = try PredicateParser(format: format, arguments: arguments)
        let predicate = try parser.parseOr()
        try parser.finish(expecting: "AND, OR or the end of the predicate")
        try parser.checkTreeDepth(predicate.treeDepth)
        return predicate
    }

    /// Parses a whole expression (`NSExpression(format:)`).
    static func parseExpression(_ format: String, arguments: [Any]) throws(PredicateSyntaxError) -> StoreExpression {
        var parser = try PredicateParser(format: format, arguments: arguments)
        let expression = try parser.parseExpression()
        try parser.finish(expecting: "an operator or the end of the expression")
        try parser.checkTreeDepth(expression.treeDepth)
        return expression
    }

    /// Refuses a tree deeper than ``maximumTreeDepth`` (a long chain of operators).
    func checkTreeDepth(_ depth: Int) throws(PredicateSyntaxError) {
        guard depth <= Self.maximumTreeDepth else {
            throw PredicateSyntaxError(
                .nestingTooDeep,
                "the expression is \(depth) levels deep (each operator of a chain such as a + b + c is a level); at most \(Self.maximumTreeDepth)",
                format: format, offset: 0)
        }
    }

    mutating func finish(expecting expected: String) throws(PredicateSyntaxError) {
        guard current.kind == .end else { throw unexpected(expected) }
        if argumentIndex < arguments.count {
            throw PredicateSyntaxError(
                .extraArgument,
                "the format string uses \(argumentIndex) argument(s) but \(arguments.count) were given",
                format: format, offset: current.offset)
        }
    }

    // MARK: Token helpers

    var current: PredicateToken { tokens[min(index, tokens.count - 1)] }

    func peek(_ ahead: Int) -> PredicateToken { tokens[min(index + ahead, tokens.count - 1)] }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    /// Consumes the symbol if it is next.
    mutating func accept(_ symbol: String) -> Bool {
        guard current.isSymbol(symbol) else { return false }
        advance()
        return true
    }

    /// Consumes the keyword (case-insensitive) if it is next.
    mutating func acceptKeyword(_ keyword: String) -> Bool {
        guard current.isKeyword(keyword) else { return false }
        advance()
        return true
    }

    mutating func expect(_ symbol: String, _ context: String) throws(PredicateSyntaxError) {
        guard accept(symbol) else { throw unexpected("'\(symbol)' \(context)") }
    }

    func unexpected(_ expected: String) -> PredicateSyntaxError {
        PredicateSyntaxError(.unexpectedToken, "expected \(expected), found \(current.display)", format: format, offset: current.offset)
    }

    /// Runs `body` one nesting level deeper, refusing input nested beyond ``maximumDepth``.
    mutating func nested<T>(_ body: (inout PredicateParser) throws(PredicateSyntaxError) -> T) throws(PredicateSyntaxError) -> T {
        guard depth < Self.maximumDepth else {
            throw PredicateSyntaxError(.nestingTooDeep, "nesting deeper than \(Self.maximumDepth) levels", format: format, offset: current.offset)
        }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    // MARK: Predicates

    mutating func parseOr() throws(PredicateSyntaxError) -> StorePredicate {
        var parts = [try parseAnd()]
        while acceptKeyword("OR") || accept("||") { parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd() throws(PredicateSyntaxError) -> StorePredicate {
        var parts = [try parseNot()]
        while acceptKeyword("AND") || accept("&&") { parts.append(try parseNot()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseNot() throws(PredicateSyntaxError) -> StorePredicate {
        if acceptKeyword("NOT") || accept("!") {
            return .not(try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in try p.parseNot() })
        }
        return try parsePrimaryPredicate()
    }

    mutating func parsePrimaryPredicate() throws(PredicateSyntaxError) -> StorePredicate {
        if acceptKeyword("TRUEPREDICATE") { return .constant(true) }
        if acceptKeyword("FALSEPREDICATE") { return .constant(false) }
        guard current.isSymbol("(") else { return try parseComparison() }
        let start = index
        switch parenthesized[start] {
        case .parsed(let predicate, let end, let arguments)?:
            (index, argumentIndex) = (end, arguments)
            return predicate
        case .failed(let error)?:
            throw error
        case nil:
            do {
                let predicate = try parseParenthesized()
                parenthesized[start] = .parsed(predicate, end: index, argumentIndex: argumentIndex)
                return predicate
            } catch {
                parenthesized[start] = .failed(error)
                throw error
            }
        }
    }

    /// A predicate or a comparison starting with `(`.
    mutating func parseParenthesized() throws(PredicateSyntaxError) -> StorePredicate {
        // A parenthesis opens either a predicate or an expression (`(a + b) > 2`): try the
        // predicate first and fall back, reporting whichever attempt got further.
        let saved = (index, argumentIndex)
        let predicateError: PredicateSyntaxError
        do {
            return try nested { (p: inout PredicateParser) throws(PredicateSyntaxError) in
                p.advance()
                let inner = try p.parseOr()
                try p.expect(")", "to close the parenthesis")
                return inner
            }
        } catch {
            predicateError = error
        }
        (index, argumentIndex) = saved
        do {
            return try parseComparison()
        } catch {
            throw error.offset >= predicateError.offset ? error : predicateError
        }
    }

    mutating func parseComparison() throws(PredicateSyntaxError) -> StorePredicate {
        var modifier = StoreComparison.Modifier.direct
        var negate = false
        if acceptKeyword("ANY") || acceptKeyword("SOME") {
            modifier = .any
        } else if acceptKeyword("ALL") {
            modifier = .all
        } else if acceptKeyword("NONE") {
            modifier = .any
            negate = true
        }
        let left = try parseExpression()
        let (op, options) = try parseOperator()
        let right = try parseExpression()
        let comparison = StorePredicate.comparison(StoreComparison(left, op, right, modifier: modifier, options: options))
        return negate ? .not(comparison) : comparison
    }

    mutating func parseOperator() throws(PredicateSyntaxError) -> (StoreComparison.Operator, StoreComparison.Options) {
        let symbols: [String: StoreComparison.Operator] = [
            "=": .equalTo, "==": .equalTo, "!=": .notEqualTo, "<>": .notEqualTo,
            "<": .lessThan, "<=": .lessThanOrEqualTo, "=<": .lessThanOrEqualTo,
            ">": .greaterThan, ">=": .greaterThanOrEqualTo, "=>": .greaterThanOrEqualTo,
        ]
        let op: StoreComparison.Operator
        switch current.kind {
        case .symbol(let s) where symbols[s] != nil:
            op = symbols[s] ?? .equalTo
        case .word(let w):
            guard let named = StoreComparison.Operator(rawValue: w.uppercased()), named.rawValue.first?.isLetter == true else {
                throw unexpected("a comparison operator (==, !=, <, >, IN, LIKE, CONTAINS…)")
            }
            op = named
        default:
            throw unexpected("a comparison operator (==, !=, <, >, IN, LIKE, CONTAINS…)")
        }
        advance()
        return (op, try parseOptions())
    }

    /// `[c]`, `[d]`, `[n]` and combinations after an operator (`[l]`, locale, is accepted and ignored).
    mutating func parseOptions() throws(PredicateSyntaxError) -> StoreComparison.Options {
        guard current.isSymbol("[") else { return [] }
        advance()
        guard case .word(let letters) = current.kind else { throw unexpected("comparison options such as c, d or cd") }
        var options: StoreComparison.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": break
            default: throw unexpected("comparison options made of c, d, n and l")
            }
        }
        advance()
        try expect("]", "to close the comparison options")
        return options
    }
}
