/// Splits a predicate format string into tokens.
///
/// Offsets are counted in Unicode scalars. Errors name the offending character and its offset.
struct PredicateLexer {
    private let format: String
    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ format: String) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
    }

    /// All tokens of the string, ending with `.end`.
    static func tokenize(_ format: String) throws(PredicateSyntaxError) -> [PredicateToken] {
        var lexer = PredicateLexer(format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        let index = position + ahead
        return index < scalars.count ? scalars[index] : nil
    }

    private func error(_ code: PredicateSyntaxError.Code, _ message: String, at offset: Int) -> PredicateSyntaxError {
        PredicateSyntaxError(code, message, format: format, offset: offset)
    }

    static func isWordStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    static func isWordPart(_ c: Unicode.Scalar) -> Bool {
        isWordStart(c) || c.properties.numericType != nil
    }

    private static func isDigit(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return c.value >= 48 && c.value <= 57
    }

    private mutating func word() -> String {
        var text = String.UnicodeScalarView()
        while let c = peek(), Self.isWordPart(c) {
            text.append(c)
            position += 1
        }
        return String(text)
    }

    mutating func next() throws(PredicateSyntaxError) -> PredicateToken {
        while let c = peek(), c.properties.isWhitespace { position += 1 }
        let start = position
        guard let c = peek() else { return PredicateToken(kind: .end, offset: start) }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: kind, offset: start) }

        if Self.isWordStart(c) { return token(.word(word())) }
        if Self.isDigit(c) { return token(try number()) }
        switch c {
        case "\"", "'":
            return token(.string(try quoted()))
        case "#", "@", "$":
            position += 1
            guard let first = peek(), Self.isWordStart(first) else {
                throw error(.invalidCharacter, "expected a name after '\(c)'", at: position)
            }
            let name = word()
            return token(c == "#" ? .escapedWord(name) : c == "@" ? .collectionOperator(name) : .variable(name))
        case "%":
            return token(.specifier(try specifier()))
        default:
            break
        }
        for symbol in ["**", "==", "=<", "=>", "!=", "<>", "<=", ">=", "&&", "||", "<<", ">>"] where matches(symbol) {
            position += 2
            return token(.symbol(symbol))
        }
        if "=<>!+-*/(){}[],.:&|^~".unicodeScalars.contains(c) {
            position += 1
            return token(.symbol(String(Character(c))))
        }
        throw error(.invalidCharacter, "unexpected character '\(Character(c))'", at: start)
    }

    private func matches(_ symbol: String) -> Bool {
        var index = 0
        for s in symbol.unicodeScalars {
            guard peek(index) == s else { return false }
            index += 1
        }
        return true
    }

    /// A printf-style specifier as NSPredicate reads them: `%@`, `%K`, or an optional length
    /// modifier (`hh`, `h`, `l`, `ll`, `q`, `L`, `z`, `t`, `j`) and a conversion (`d i D u U o O x X
    /// c C e E f F g G a A s S`). Returned without the `%`, with its length modifier.
    private mutating func specifier() throws(PredicateSyntaxError) -> String {
        let start = position
        position += 1
        if matches("@") || matches("K") {
            position += 1
            return String(Character(scalars[position - 1]))
        }
        var spec = ""
        for modifier in ["hh", "ll", "h", "l", "q", "L", "z", "t", "j"] where matches(modifier) {
            spec = modifier
            position += modifier.unicodeScalars.count
            break
        }
        if let conversion = peek(), PredicateArgument.conversions.contains(Character(conversion)) {
            position += 1
            return spec + String(Character(conversion))
        }
        throw error(
            .invalidCharacter,
            "unknown format specifier; expected %@, %K, or a printf conversion such as %d, %ld, %lu, %x, %c, %f, %la, %e, %g or %s",
            at: start)
    }

    private mutating func number() throws(PredicateSyntaxError) -> PredicateToken.Kind {
        let start = position
        if peek() == "0", let radix = peek(1), "xXoObB".unicodeScalars.contains(radix) {
            position += 2
            let text = word()
            guard !text.isEmpty else { throw error(.invalidNumber, "expected digits after '0\(radix)'", at: position) }
            return .integer("0" + String(Character(radix)).lowercased() + text)
        }
        var text = String.UnicodeScalarView()
        var isReal = false
        func digits() {
            while let d = peek(), Self.isDigit(d) {
                text.append(d)
                position += 1
            }
        }
        digits()
        if peek() == ".", Self.isDigit(peek(1)) {
            isReal = true
            text.append(".")
            position += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            let sign = peek(1) == "+" || peek(1) == "-"
            if Self.isDigit(peek(sign ? 2 : 1)) {
                isReal = true
                text.append("e")
                if sign, let s = peek(1) { text.append(s) }
                position += sign ? 2 : 1
                digits()
            }
        }
        if let c = peek(), Self.isWordPart(c) {
            throw error(.invalidNumber, "malformed number", at: start)
        }
        return isReal ? .real(String(text)) : .integer(String(text))
    }

    private mutating func quoted() throws(PredicateSyntaxError) -> String {
        let start = position
        guard let quote = peek() else { return "" }
        position += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let c = peek() else {
                throw error(.invalidString, "unterminated string; expected a closing \(quote)", at: start)
            }
            position += 1
            if c == quote { return String(text) }
            guard c == "\\" else {
                text.append(c)
                continue
            }
            guard let escaped = peek() else {
                throw error(.invalidString, "unterminated string; expected a closing \(quote)", at: start)
            }
            position += 1
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0": text.append("\0")
            case "\\", "\"", "'": text.append(escaped)
            case "u":
                var value: UInt32 = 0
                for _ in 0..<4 {
                    guard let h = peek(), let digit = Character(h).hexDigitValue else {
                        throw error(.invalidString, "expected four hex digits after \\u", at: position)
                    }
                    value = value * 16 + UInt32(digit)
                    position += 1
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw error(.invalidString, "\\u\(String(value, radix: 16)) is not a Unicode scalar", at: position - 6)
                }
                text.append(scalar)
            default:
                throw error(.invalidString, "unknown escape '\\\(Character(escaped))'", at: position - 2)
            }
        }
    }
}
