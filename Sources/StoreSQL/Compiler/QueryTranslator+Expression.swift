import Foundation
import StoreCore

/// Expressions: constants (bound), `SELF`, key paths, variables, lists, subqueries, TERNARY and
/// the expression functions.
///
/// For example, on `Quake`:
///
/// ```
/// SUBQUERY(reports, $r, $r.rating > 3).@count
///     (SELECT COUNT(*) FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK AND t1.ZRATING > ?1)
/// TERNARY(felt == TRUE, 'yes', 'no')
///     CASE WHEN t0.ZFELT = ?1 THEN ?2 ELSE ?3 END
/// ```
extension QueryTranslator {
    package func operand(_ expression: StoreExpression, _ scope: QueryScope) throws -> QueryOperand {
        switch expression {
        case .constant(let value):
            return .scalar(constant(value))
        case .evaluatedObject:
            return scope.subject
        case .keyPath(let path):
            return try follow(path, from: scope.subject)
        case .variable(let name):
            guard let bound = scope.variables[name] else {
                throw FetchError(.unboundVariable, "variable $\(name) has no value; substitute it before fetching")
            }
            return bound
        case .member(let base, let path):
            if isConstant(expression) { return try folded(expression) }
            return try follow(path, from: operand(base, scope))
        case .aggregate(let items):
            if isConstant(expression) { return try folded(expression) }
            return .list(try items.map { try operand($0, scope) })
        case .function(let name, let arguments):
            if isConstant(expression) { return try folded(expression) }
            return try function(name, arguments, scope)
        case .subquery(let collection, let variable, let predicate):
            if isConstant(expression) { return try folded(expression) }
            return try subquery(collection, variable, predicate, scope)
        case .conditional(let predicate, let then, let otherwise):
            if isConstant(expression) { return try folded(expression) }
            let test = try condition(predicate, scope)
            let a = try operand(then, scope), b = try operand(otherwise, scope)
            guard !a.isCollection, !b.isCollection else {
                throw FetchError(.unsupported, "TERNARY giving a collection does not compile to SQL")
            }
            let x = a.scalar, y = b.scalar
            return .scalar(SQLScalar(sql: "(CASE WHEN \(test.sql) THEN \(x.sql) ELSE \(y.sql) END)", kind: x.kind.union(y.kind), nullable: x.nullable || y.nullable))
        }
    }

    /// `SUBQUERY(collection, $x, predicate)`: the collection's rows, restricted by the predicate
    /// with `$x` (and `SELF`) naming the element.
    private func subquery(_ collection: StoreExpression, _ variable: String, _ predicate: StorePredicate, _ scope: QueryScope) throws -> QueryOperand {
        var rows = try rows(of: try operand(collection, scope))
        if rows.distinct { rows = try materialized(rows) }
        rows.nullWhenNull = nil
        var inner = scope
        inner.subject = rows.element
        inner.variables[variable] = rows.element
        rows.level.restrict(try condition(predicate, inner).sql)
        return .collection(rows)
    }

    // MARK: Functions

    package static let binaryFunctions: Set<String> = [
        "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
        "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
    ]

    package static let unaryFunctions: [String: String] = [
        "abs:": "abs", "sqrt:": "sqrt", "log:": "log10", "ln:": "ln", "exp:": "exp",
        "floor:": "floor", "ceiling:": "ceil", "trunc:": "trunc", "onesComplement:": "",
    ]

    private func function(_ name: String, _ arguments: [StoreExpression], _ scope: QueryScope) throws -> QueryOperand {
        if name == StorePredicate.syntaxErrorFunction { throw StorePredicate.literalSyntaxFailure(arguments) }
        if name == StoreExpression.indexFunctionName {
            return try indexed(arguments, scope)
        }
        if name == "FUNCTION" {
            return try functionOnReceiver(arguments, scope)
        }
        let args = try arguments.map { try operand($0, scope) }
        func require(_ count: Int) throws {
            guard args.count == count else {
                throw FetchError(.invalidArgument, "\(name) takes \(count) argument(s), got \(args.count)")
            }
        }
        if name == "now" || name == "now:" {
            try require(0)
            return .scalar(constant(.date(Date())))
        }
        if Self.aggregateFunctionNames.contains(name) {
            try requireBindable("the aggregate function \(name)")
            return try aggregateFunction(name, args)
        }
        switch name {
        case "indexed:by:", "noindex:":
            guard let first = args.first else {
                throw FetchError(.invalidArgument, "\(name) takes 1 argument(s), got 0")
            }
            return first
        case ConstantCast.functionName:
            try require(2)
            return .scalar(try cast(args[0].scalar, args[1].scalar))
        case "lowercase:", "uppercase:":
            try require(1)
            let text = args[0].scalar
            guard text.kind.mayBeString else { return .scalar(.null) }
            let function = name == "lowercase:" ? schema.dialect.lowercaseFunction : schema.dialect.uppercaseFunction
            return .scalar(SQLScalar(sql: try stowageFunction(function, [text.sql]), kind: .string, nullable: text.nullable || text.kind == .unknown))
        case "canonical:":
            try require(1)
            let text = args[0].scalar
            guard text.kind.mayBeString else { return .scalar(.null) }
            let options = StoreComparison.Options([.caseInsensitive, .diacriticInsensitive]).rawValue
            return .scalar(SQLScalar(sql: try stowageFunction(schema.dialect.foldFunction, [text.sql, String(options)]), kind: .string, nullable: text.nullable || text.kind == .unknown))
        case "length:":
            try require(1)
            return .scalar(try selectorCall("length", args[0].scalar, [], name))
        case "random":
            try requireBindable("random")
            return .scalar(SQLScalar(sql: schema.dialect.randomFraction, kind: .real, nullable: false))
        case "randomn:":
            try require(1)
            try requireBindable("randomn:")
            let bound = args[0].scalar
            if bound.isNullConstant { return .scalar(.null) }
            guard bound.kind == .integer || bound.kind == .unknown || bound.kind == .number else {
                throw FetchError(.invalidArgument, "randomn: needs a positive integer, got \(bound.kind) values")
            }
            if case .integer(let n)? = bound.constant, n <= 0 {
                throw FetchError(.invalidArgument, "randomn: needs a positive integer, got \(n)")
            }
            let b = bound.sql
            return .scalar(SQLScalar(sql: "(CASE WHEN \(b) > 0 THEN ((\(schema.dialect.randomInteger) % \(b)) + \(b)) % \(b) END)", kind: .integer, nullable: true))
        default:
            break
        }
        if let sqlName = Self.unaryFunctions[name] {
            try require(1)
            return .scalar(try unary(name, sqlName, args[0].scalar))
        }
        if Self.binaryFunctions.contains(name) {
            try require(2)
            return .scalar(try arithmetic(name, args[0].scalar, args[1].scalar))
        }
        throw FetchError(.unsupported, "the function \(name) is not one Core Data supports in fetches")
    }

    /// `abs:` … `trunc:`: integers stay integers for `abs:`; `onesComplement:` (`~x`) needs
    /// integers; the rest are doubles.
    private func unary(_ name: String, _ sqlName: String, _ x: SQLScalar) throws -> SQLScalar {
        if x.isNullConstant { return .null }
        guard x.kind.isNumericOrUnknown else {
            throw FetchError(.invalidArgument, "\(name) needs a number, got \(x.kind) values")
        }
        switch name {
        case "abs:":
            return SQLScalar(sql: "abs(\(x.sql))", kind: x.kind == .integer ? .integer : (x.kind == .unknown ? .number : .real), nullable: x.nullable)
        case "onesComplement:":
            switch x.kind {
            case .integer: return SQLScalar(sql: "(~\(x.sql))", kind: .integer, nullable: x.nullable)
            case .unknown, .number: return SQLScalar(sql: "(CASE WHEN typeof(\(x.sql)) = 'integer' THEN ~\(x.sql) ELSE \(x.sql) END)", kind: .number, nullable: x.nullable)
            default: throw FetchError(.invalidArgument, "onesComplement: needs an integer, got \(x.kind) values")
            }
        default:
            return SQLScalar(sql: "\(sqlName)(\(x.sql))", kind: .real, nullable: true)
        }
    }

    /// The binary functions with the evaluator's rules (see `Arithmetic`): integers stay
    /// integers (SQLite turns an overflowing result into REAL, as the evaluator does),
    /// `divide:by:` gives doubles (±infinity for a division by zero, NULL for 0/0 where the
    /// evaluator has NaN), a date plus or minus seconds is a date, a date minus a date is seconds.
    private func arithmetic(_ name: String, _ x: SQLScalar, _ y: SQLScalar) throws -> SQLScalar {
        if x.isNullConstant || y.isNullConstant { return .null }
        guard x.kind.isNumericOrUnknown, y.kind.isNumericOrUnknown else {
            throw FetchError(.invalidArgument, "\(name) needs numbers, got \(x.kind) and \(y.kind) values")
        }
        let integers = x.kind == .integer && y.kind == .integer
        let unknown = x.kind == .unknown || y.kind == .unknown
        let numberKind: SQLKind = integers ? .integer : (unknown ? .number : .real)
        let nullable = x.nullable || y.nullable
        let a = x.sql, b = y.sql
        switch name {
        case "add:to:":
            let kind: SQLKind = x.kind == .date || y.kind == .date ? .date : numberKind
            return SQLScalar(sql: "(\(a) + \(b))", kind: kind, nullable: nullable)
        case "from:subtract:":
            let kind: SQLKind = x.kind == .date ? (y.kind == .date ? .real : .date) : numberKind
            return SQLScalar(sql: "(\(a) - \(b))", kind: kind, nullable: nullable)
        case "multiply:by:":
            return SQLScalar(sql: "(\(a) * \(b))", kind: numberKind, nullable: nullable)
        case "divide:by:":
            if let divisor = y.constant?.numericValue, divisor != 0 {
                return SQLScalar(sql: "(CAST(\(a) AS \(schema.dialect.realType)) / \(b))", kind: .real, nullable: x.nullable)
            }
            let infinity = schema.dialect.infinity
            let infinite = "CASE WHEN \(a) > 0 THEN \(infinity) WHEN \(a) < 0 THEN -\(infinity) END"
            return SQLScalar(sql: "(CASE WHEN \(b) = 0 THEN \(infinite) ELSE CAST(\(a) AS \(schema.dialect.realType)) / \(b) END)", kind: .real, nullable: true)
        case "modulus:by:":
            if integers { return SQLScalar(sql: schema.dialect.integerRemainder(a, b), kind: .integer, nullable: true) }
            return SQLScalar(sql: schema.dialect.realRemainder(a, b), kind: unknown ? .number : .real, nullable: true)
        case "raise:toPower:":
            return SQLScalar(sql: "pow(\(a), \(b))", kind: .real, nullable: true)
        default:
            break
        }
        // Bitwise functions need integers.
        for side in [x, y] where side.kind != .integer && side.kind != .unknown && side.kind != .number {
            throw FetchError(.invalidArgument, "\(name) needs integers, got \(side.kind) values")
        }
        switch name {
        case "bitwiseAnd:with:": return SQLScalar(sql: "(\(a) & \(b))", kind: .integer, nullable: nullable)
        case "bitwiseOr:with:": return SQLScalar(sql: "(\(a) | \(b))", kind: .integer, nullable: nullable)
        case "bitwiseXor:with:": return SQLScalar(sql: "((\(a) | \(b)) - (\(a) & \(b)))", kind: .integer, nullable: nullable)
        default:
            // Shifts by 64 or more, or by a negative count, give 0 (or -1 shifting a negative right).
            let left = name == "leftshift:by:"
            let shifted = schema.dialect.shift(a, left: left, by: b)
            if case .integer(let count)? = y.constant, (0..<64).contains(count) {
                return SQLScalar(sql: "(\(shifted))", kind: .integer, nullable: nullable)
            }
            // (NULL stays NULL.)
            let outOfRange = left ? "(\(a) * 0)" : "(CASE WHEN \(a) < 0 THEN -1 WHEN \(a) >= 0 THEN 0 END)"
            return SQLScalar(sql: "(CASE WHEN \(b) < 0 OR \(b) >= 64 THEN \(outOfRange) ELSE \(shifted) END)", kind: .integer, nullable: nullable)
        }
    }

    /// `CAST(value, 'Type')` of a value known only when the query runs (constants are folded
    /// by the parser): numbers and dates convert in SQL, strings through `stowage_cast`, which
    /// runs the evaluator's conversion.
    private func cast(_ value: SQLScalar, _ type: SQLScalar) throws -> SQLScalar {
        guard case .string(let typeName)? = type.constant else {
            throw FetchError(.invalidArgument, "CAST needs a type name string")
        }
        if value.isNullConstant { return .null }
        func converted(_ kind: SQLKind) throws -> SQLScalar {
            SQLScalar(sql: try stowageFunction(schema.dialect.castFunction, [value.sql, bind(.text(typeName))]), kind: kind, nullable: true)
        }
        let kind = value.kind
        switch typeName {
        case "NSDate":
            if kind == .date || (kind.family == .number && kind != .boolean) { return SQLScalar(sql: value.sql, kind: .date, nullable: value.nullable) }
            if kind.mayBeString { return try converted(.date) }
        case "NSNumber":
            if kind == .date { return SQLScalar(sql: value.sql, kind: .real, nullable: value.nullable) }
            if kind.family == .number { return value }
            if kind.mayBeString { return try converted(.number) }
        case "NSString":
            if kind == .string { return value }
            if kind == .integer { return SQLScalar(sql: "CAST(\(value.sql) AS TEXT)", kind: .string, nullable: value.nullable) }
            if kind == .real || kind == .number || kind == .unknown { return try converted(.string) }
        case "NSDecimalNumber": if kind.mayBeString { return try converted(.decimal) }
        case "Float": if kind.mayBeString { return try converted(.real) }
        case "NSUUID": if kind.mayBeString { return try converted(.uuid) }
        case "NSURL": if kind.mayBeString { return try converted(.uri) }
        case "NSData": if kind.mayBeString { return try converted(.data) }
        case "NSManagedObjectID": if kind.mayBeString { return try converted(.unknown) }
        default: break
        }
        return .null
    }
}
