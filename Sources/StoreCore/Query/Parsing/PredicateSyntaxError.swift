/// A predicate format string that cannot be parsed, or whose arguments do not fit it: what was
/// expected, at which character, and the offending text with a caret under it.
///
/// For example:
///
/// ```swift
/// do {
///     _ = try StorePredicate(format: "magnitude > * 2")
/// } catch {
///     print(error)
///     // expected an expression, found '*' at character 12
///     //   magnitude > * 2
///     //               ^
/// }
/// ```
public struct PredicateSyntaxError: CodedError, CustomStringConvertible, Sendable, Hashable {
    /// The kind of a syntax error: an `ErrorCode` whose values (`.unexpectedToken`,
    /// `.missingArgument`, …) are its static members below.
    public typealias Code = ErrorCode<PredicateSyntaxError>

    /// The kind of problem.
    public let code: Code
    /// What went wrong, in words (without the position).
    public let message: String
    /// The format string that was parsed.
    public let format: String
    /// The offset of the offending text in `format`, counted in Unicode scalars from 0.
    public let offset: Int

    /// Creates a syntax error in `format` at `offset` (in Unicode scalars from 0).
    public init(_ code: Code, _ message: String, format: String, offset: Int) {
        self.code = code
        self.message = message
        self.format = format
        self.offset = offset
    }

    /// The message, the position, and the format string with a caret under the offending text.
    public var description: String {
        "\(message) at character \(offset)\n\(excerpt)"
    }

    /// Up to 72 characters of the format string around the error, with a caret line below.
    public var excerpt: String {
        let scalars = Array(format.unicodeScalars).map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : $0 }
        let clamped = max(0, min(offset, scalars.count))
        let start = max(0, clamped - 40)
        let end = min(scalars.count, start + 72)
        var line = String.UnicodeScalarView()
        line.append(contentsOf: scalars[start..<end])
        let prefix = start > 0 ? "…" : ""
        let suffix = end < scalars.count ? "…" : ""
        return "  \(prefix)\(String(line))\(suffix)\n  \(String(repeating: " ", count: prefix.count + clamped - start))^"
    }
}

extension ErrorCode where Domain == PredicateSyntaxError {
    /// A character that cannot start any token.
    public static let invalidCharacter = Self("invalidCharacter")
    /// A quoted string without its closing quote, or a bad escape inside it.
    public static let invalidString = Self("invalidString")
    /// A malformed or out-of-range number.
    public static let invalidNumber = Self("invalidNumber")
    /// A token other than the one the grammar expects.
    public static let unexpectedToken = Self("unexpectedToken")
    /// More `%` specifiers than arguments.
    public static let missingArgument = Self("missingArgument")
    /// More arguments than `%` specifiers.
    public static let extraArgument = Self("extraArgument")
    /// An argument of the wrong kind for its specifier (`%K` given a number, `%d` a string…).
    public static let wrongArgumentType = Self("wrongArgumentType")
    /// Parentheses, NOTs or functions nested deeper than the parser allows.
    public static let nestingTooDeep = Self("nestingTooDeep")
}
