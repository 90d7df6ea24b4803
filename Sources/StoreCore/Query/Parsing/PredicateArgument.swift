import Foundation

/// Turns the Swift values given for `%` specifiers into expressions.
///
/// `%@` takes any ``StoreValueConvertible`` value, `nil`, a ``ManagedObject`` (its object ID), a
/// ``StoreExpression``, or an array or set of those (an aggregate). `%K` takes a key path string.
/// Integer conversions (`%d`, `%i`, `%ld`, `%lld`, `%u`, `%lu`, `%x`, `%o`, `%hd`, `%qi`…; `%c` a
/// character's code, as an integer or a one-character string) take integers; floating-point
/// conversions (`%f`, `%lf`, `%e`, `%g`, `%a`, `%la`…) numbers; `%s` strings.
enum PredicateArgument {
    /// What a specifier expected, when its argument does not fit.
    struct Mismatch: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// The expression for `argument` given for the specifier `spec`, or a description of what
    /// the specifier expects.
    /// The printf conversions a specifier may end with (after its length modifier).
    static let conversions: Set<Character> = ["d", "i", "D", "u", "U", "o", "O", "x", "X", "c", "C", "e", "E", "f", "F", "g", "G", "a", "A", "s", "S"]

    static func expression(for argument: Any, specifier spec: String) -> Result<StoreExpression, Mismatch> {
        guard spec != "@", spec != "K", let conversion = spec.last else { return keyOrObject(argument, specifier: spec) }
        switch conversion {
        case "d", "i", "D", "u", "U", "o", "O", "x", "X", "c", "C":
            // Integers (%c, %C: a character's code), whatever the length modifier.
            if let value = integer(argument) { return .success(.constant(.integer(value))) }
            if conversion == "c" || conversion == "C", let scalar = singleScalar(argument) {
                return .success(.constant(.integer(Int64(scalar.value))))
            }
            return .failure(Mismatch("%\(spec) expects an integer, got \(kind(of: argument))"))
        case "e", "E", "f", "F", "g", "G", "a", "A":
            if let value = argument as? any BinaryFloatingPoint { return .success(.constant(.double(Double(value)))) }
            if let value = integer(argument) { return .success(.constant(.double(Double(value)))) }
            if let value = argument as? Decimal { return .success(.constant(.double(value.nearestDouble))) }
            return .failure(Mismatch("%\(spec) expects a number, got \(kind(of: argument))"))
        default:  // s, S
            if let value = argument as? String { return .success(.constant(.string(value))) }
            if let value = argument as? Substring { return .success(.constant(.string(String(value)))) }
            return .failure(Mismatch("%\(spec) expects a string, got \(kind(of: argument))"))
        }
    }

    private static func singleScalar(_ argument: Any) -> Unicode.Scalar? {
        let text = (argument as? Character).map(String.init) ?? (argument as? String)
        guard let text, text.unicodeScalars.count == 1 else { return nil }
        return text.unicodeScalars.first
    }

    private static func keyOrObject(_ argument: Any, specifier spec: String) -> Result<StoreExpression, Mismatch> {
        switch spec {
        case "K":
            let path = (argument as? String) ?? (argument as? Substring).map(String.init)
            if let path, isKeyPath(path) { return .success(.keyPath(path)) }
            if let expression = argument as? StoreExpression, case .keyPath(let path) = expression, isKeyPath(path) {
                return .success(expression)
            }
            let got = path.map { "'\($0)'" } ?? kind(of: argument)
            return .failure(Mismatch("%K expects a key path (names and @operators joined by dots), got \(got)"))
        default:
            return object(argument, nestedIn: 0)
        }
    }

    private static func object(_ argument: Any, nestedIn depth: Int) -> Result<StoreExpression, Mismatch> {
        if isNil(argument) { return .success(.constant(.null)) }
        if let expression = argument as? StoreExpression { return .success(expression) }
        if let object = argument as? ManagedObject { return .success(.constant(.objectID(object.objectID))) }
        if let value = argument as? any StoreValueConvertible { return .success(.constant(value.storeValue)) }
        if let value = argument as? Substring { return .success(.constant(.string(String(value)))) }
        if let value = integer(argument) { return .success(.constant(.integer(value))) }
        if let value = argument as? any BinaryFloatingPoint { return .success(.constant(.double(Double(value)))) }
        if let value = argument as? NSNumber { return .success(.constant(.double(value.doubleValue))) }
        if let sequence = argument as? any Sequence, depth < 8 {
            var items: [StoreExpression] = []
            for element in AnySequence(erasing: sequence) {
                switch object(element, nestedIn: depth + 1) {
                case .success(let item): items.append(item)
                case .failure(let mismatch): return .failure(mismatch)
                }
            }
            return .success(.aggregate(items))
        }
        return .failure(Mismatch("%@ cannot take a value of type \(kind(of: argument))"))
    }

    /// Whether `path` is dot-separated names (`author.name`) and collection operators (`@count`).
    static func isKeyPath(_ path: String) -> Bool {
        !path.isEmpty && path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { component in
            let name = component.hasPrefix("@") ? component.dropFirst() : component
            guard let first = name.unicodeScalars.first, PredicateLexer.isWordStart(first) else { return false }
            return name.unicodeScalars.allSatisfy(PredicateLexer.isWordPart)
        }
    }

    private static func integer(_ argument: Any) -> Int64? {
        if let value = argument as? any BinaryInteger { return Int64(exactly: value) }
        return nil
    }

    private static func isNil(_ argument: Any) -> Bool {
        let mirror = Mirror(reflecting: argument)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    static func kind(of argument: Any) -> String {
        isNil(argument) ? "nil" : String(describing: type(of: argument))
    }
}

private extension AnySequence where Element == Any {
    init(erasing sequence: any Sequence) {
        func open<S: Sequence>(_ s: S) -> AnySequence<Any> { AnySequence(s.lazy.map { $0 as Any }) }
        self = open(sequence)
    }
}
