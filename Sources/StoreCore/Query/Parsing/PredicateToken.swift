/// One token of a predicate format string.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A bare word: a key, a keyword (`AND`, `ANY`, `TRUEPREDICATE`…) or a selector part.
        case word(String)
        /// A word escaped with `#`, never a keyword (`#in`).
        case escapedWord(String)
        /// A collection operator (`@count`), without the `@`.
        case collectionOperator(String)
        /// A variable (`$x`), without the `$`.
        case variable(String)
        /// An integer literal as written (`42`, `0x2A`, `0o52`, `0b101010`).
        case integer(String)
        /// A floating-point literal as written (`2.5`, `1e-3`).
        case real(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// A format specifier (`%@`, `%K`, `%d`, `%ld`, `%f`, `%s`…), without the `%`.
        case specifier(String)
        /// Punctuation or an operator symbol (`(`, `,`, `==`, `**`, `&&`, `&`, `<<`…).
        case symbol(String)
        case end
    }

    var kind: Kind
    /// Offset of the token's first scalar in the format string.
    var offset: Int

    /// The token as a user would recognise it in an error message.
    var display: String {
        switch kind {
        case .word(let w): "'\(w)'"
        case .escapedWord(let w): "'#\(w)'"
        case .collectionOperator(let w): "'@\(w)'"
        case .variable(let w): "'$\(w)'"
        case .integer(let t), .real(let t): "'\(t)'"
        case .string: "a string"
        case .specifier(let s): "'%\(s)'"
        case .symbol(let s): "'\(s)'"
        case .end: "the end of the format string"
        }
    }

    /// Whether this is the bare word `keyword`, compared case-insensitively.
    func isKeyword(_ keyword: String) -> Bool {
        if case .word(let w) = kind { return w.uppercased() == keyword }
        return false
    }

    func isSymbol(_ symbol: String) -> Bool {
        kind == .symbol(symbol)
    }
}
