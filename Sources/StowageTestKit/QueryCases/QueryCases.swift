import StoreCore

/// The shared table of predicate cases: every row is a format string, arguments, variables and
/// the quakes of ``QueryFixture`` it matches (or the error it raises). Backends run the same rows.
///
/// Rows are written with one small, non-overloaded function per shape (`match`, `matchArgs`,
/// `parseFails`…) and kept in arrays of at most 40, so the compiler type-checks them quickly.
///
/// For example:
///
/// ```swift
/// try QueryCaseSuite.run(on: store)              // every row of QueryCases.all against a store
/// let formats = QueryCases.all.map(\.format)     // ["magnitude > 5", …]
/// ```
public enum QueryCases {
    /// Every row of the table — values, graph traversal, functions, bitwise operators, indexes,
    /// selectors and errors — which every store must answer alike.
    public static var all: [QueryCase] {
        [values0, values1, values2, values3, graph0, graph1, graph2, functions0, functions1, functions2, bitwise0, index0, index1, selectors0, selectors1, errors0, errors1, errors2]
            .flatMap { $0 }
    }

    /// `matches` is the space-separated quakes it is true for, `"*"` for all, `""` for none.
    static func match(_ format: String, _ matches: String, line: UInt = #line) -> QueryCase {
        QueryCase(format, [], variables: [:], matches, line: line)
    }

    static func matchArgs(_ format: String, _ arguments: [QueryArgument], _ matches: String, line: UInt = #line) -> QueryCase {
        QueryCase(format, arguments, variables: [:], matches, line: line)
    }

    static func matchVars(_ format: String, _ variables: [String: QueryArgument], _ matches: String, line: UInt = #line) -> QueryCase {
        QueryCase(format, [], variables: variables, matches, line: line)
    }

    static func parseFails(_ format: String, _ code: PredicateSyntaxError.Code, line: UInt = #line) -> QueryCase {
        QueryCase(format, [], parseError: code, line: line)
    }

    static func parseFailsArgs(_ format: String, _ arguments: [QueryArgument], _ code: PredicateSyntaxError.Code, line: UInt = #line) -> QueryCase {
        QueryCase(format, arguments, parseError: code, line: line)
    }

    static func evalFails(_ format: String, _ code: FetchError.Code, line: UInt = #line) -> QueryCase {
        QueryCase(format, [], evaluationError: code, line: line)
    }
}
