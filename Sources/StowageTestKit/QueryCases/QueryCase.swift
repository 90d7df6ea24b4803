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
    public enum Expected: Sendable {
        /// The names of the quakes (of ``QueryFixture/quakeNames``) the predicate is true for.
        case matches(Set<String>)
        /// The parser refuses the string (or its arguments) with this code.
        case parseError(PredicateSyntaxError.Code)
        /// The predicate parses but evaluating it on quake q1 throws this code.
        case evaluationError(FetchError.Code)
    }

    public let format: String
    public let arguments: [QueryArgument]
    public let variables: [String: QueryArgument]
    public let expected: Expected
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
/// For example: `.object("q1")` becomes the object ID of quake q1 when the case runs.
public enum QueryArgument: Sendable {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null
    /// A date given as seconds after 2001-01-01.
    case date(Double)
    case list([QueryArgument])
    /// The object ID of a fixture object (`"q1"`, `"p4"`, `"ca"`).
    case object(String)

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
