import Foundation
import StoreCore

/// libFuzzer entry point: the input's first byte chooses how many arguments to pass, the rest is
/// the format string. Every input must parse or fail with `PredicateSyntaxError`; whatever parses
/// must print back to itself and evaluate (or fail with `FetchError`) without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func predicateFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let format = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let arguments: [Any] = (0..<Int(bytes[0] % 4)).map { index -> Any in
        switch (Int(bytes[0]) / 4 + index) % 5 {
        case 0: 2.5
        case 1: "magnitude"
        case 2: [1, 2, 3]
        case 3: Date(timeIntervalSinceReferenceDate: 0)
        default: Optional<Int>.none as Any
        }
    }
    guard let predicate = try? StorePredicate(format: format, argumentArray: arguments) else { return 0 }
    let printed = predicate.description
    guard let again = try? StorePredicate(format: printed), again == predicate else {
        // A deliberate trap so libFuzzer records the input: the printer and parser disagree.
        preconditionFailure("round trip failed: \(format.debugDescription) printed as \(printed.debugDescription)")
    }
    do {
        _ = try PredicateEvaluator().evaluate(predicate, on: FuzzObject.sample)
    } catch is FetchError {
    } catch {
        preconditionFailure("evaluation threw a non-FetchError: \(error)")
    }
    return 0
}

/// A small object graph for evaluating fuzzed predicates.
struct FuzzObject: PredicateEvaluationSource {
    var values: [String: StoreValue]
    var children: [FuzzObject]

    static let sample = FuzzObject(
        values: ["magnitude": 4.5, "depth": 10, "place": "Résumé, CA", "felt": true, "time": .date(Date(timeIntervalSinceReferenceDate: 0))],
        children: [
            FuzzObject(values: ["rating": 3, "author": "ada"], children: []),
            FuzzObject(values: ["rating": 5, "author": "Bob"], children: []),
        ])

    var evaluationObjectID: ManagedObjectID? { nil }

    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        if key == "reports" { return .collection(children.map { .object($0) }) }
        if let value = values[key] { return .value(value) }
        throw FetchError(.invalidKeyPath, "no key \(key)")
    }
}
