import Foundation
import StoreCore

/// One row of the shared query table: a format string, its arguments and variables, and what
/// it gives — the fixture quakes it matches, or the error it raises while parsing or evaluating.
///
/// Rows are plain data so every backend's tests can run them (see ``QueryCases/all``).
///
/// For example:
///
/// ```swift
/// for testCase in QueryCases.all { print(testCase.format) }   // "magnitude > 5", …
/// ```
public struct QueryCase: Sendable, CustomStringConvertible {
    /// What the case must give: the fixture quakes it matches, or the error it must raise.
    public enum Expected: Sendable {
        /// The names of the quakes (of ``QueryFixture/quakeNames``) the predicate is true for.
        case matches(Set<String>)
        /// The parser refuses the string (or its arguments) with this code.
        case parseError(PredicateSyntaxError.Code)
        /// The predicate parses but evaluating it on quake q1 throws this code.
        case evaluationError(FetchError.Code)
    }

    /// The predicate format string, as given to `StorePredicate(format:)`.
    public let format: String
    /// The arguments for the format string's `%@`-style placeholders, in order.
    public let arguments: [QueryArgument]
    /// Values for the format string's `$variables`, substituted after parsing.
    public let variables: [String: QueryArgument]
    /// The quakes the predicate must match, or the parse or evaluation error it must raise.
    public let expected: Expected
    /// The line of the kit's case tables the row is written on; failures are reported there.
    public let line: UInt

    init(_ format: String, _ arguments: [QueryArgument], variables: [String: QueryArgument], _ matches: String, line: UInt) {
        self.format = format
        self.arguments = arguments
        self.variables = variables
        let names = matches == "*" ? QueryFixture.quakeNames : matches.split(separator: " ").map(String.init)
        self.expected = .matches(Set(names))
        self.line = line
    }

    init(_ format: String, _ arguments: [QueryArgument], parseError code: PredicateSyntaxError.Code, line: UInt) {
        self.format = format
        self.arguments = arguments
        self.variables = [:]
        self.expected = .parseError(code)
        self.line = line
    }

    init(_ format: String, _ arguments: [QueryArgument], evaluationError code: FetchError.Code, line: UInt) {
        self.format = format
        self.arguments = arguments
        self.variables = [:]
        self.expected = .evaluationError(code)
        self.line = line
    }

    public var description: String { "line \(line): \(format)" }
}

/// An argument of a query case, as data; fixture objects are named and become their object IDs.
///
/// For example:
///
/// ```swift
/// let fixture = try QueryFixture()
/// QueryArgument.object("q1").value(in: fixture)      // quake q1's object ID
/// let arguments = testCase.arguments.map { $0.value(in: fixture) }
/// let predicate = try StorePredicate(format: testCase.format, argumentArray: arguments)
/// ```
public enum QueryArgument: Sendable {
    /// An integer argument.
    case int(Int)
    /// A floating-point argument.
    case double(Double)
    /// A string argument.
    case string(String)
    /// A Boolean argument.
    case bool(Bool)
    /// A nil argument (a null value).
    case null
    /// A date given as seconds after 2001-01-01.
    case date(Double)
    /// An array argument, for `IN`, `BETWEEN` and index operators such as `%@[FIRST]`.
    case list([QueryArgument])
    /// The object ID of a fixture object (`"q1"`, `"p4"`, `"ca"`).
    case object(String)

    /// The argument as the value handed to the format string (`Date`s for dates, the fixture's
    /// object IDs for objects, arrays for lists, `nil` for `.null`).
    public func value(in fixture: QueryFixture) -> Any {
        switch self {
        case .int(let v): v
        case .double(let v): v
        case .string(let v): v
        case .bool(let v): v
        case .null: Optional<Int>.none as Any
        case .date(let v): Date(timeIntervalSinceReferenceDate: v)
        case .list(let items): items.map { $0.value(in: fixture) }
        case .object(let name): fixture.ids[name] as Any
        }
    }

    /// The argument as a variable's value for `substituting(variables:)`; a list has no store value
    /// here and becomes null.
    public func storeValue(in fixture: QueryFixture) -> any StoreValueConvertible {
        switch self {
        case .int(let v): v
        case .double(let v): v
        case .string(let v): v
        case .bool(let v): v
        case .null: StoreValue.null
        case .date(let v): Date(timeIntervalSinceReferenceDate: v)
        case .list: StoreValue.null
        case .object(let name): fixture.ids[name].map(StoreValue.objectID) ?? .null
        }
    }
}
