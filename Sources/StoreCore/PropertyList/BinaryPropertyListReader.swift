import Foundation

/// Reads binary property lists (`bplist00`) safely, whatever the bytes: every malformed,
/// truncated or hostile input gives a ``PropertyListError``, never a crash, and time and
/// memory stay proportional to the file's size.
///
/// Policies:
/// - Sets, null/fill markers and integers outside `Int64` are refused (`.unsupported`).
///   16-byte integers are read when their value fits in `Int64`.
/// - Dictionary keys must be strings, and distinct (Swift's `String` equality).
/// - An object that contains itself is refused (`.cyclicReference`).
/// - Objects referenced several times are decoded once and shared, so decoding is linear in
///   the file. The value a file describes can still be exponentially larger (a "billion
///   laughs" of arrays that reference one array twice), so the reader counts the nodes of the
///   value with shared references expanded and refuses more than ``Limits/maxValueCount``
///   (`.tooManyValues`); it also refuses nesting deeper than ``Limits/maxDepth``
///   (`.nestingTooDeep`). Decoding is iterative, so neither limit depends on the stack size.
///
/// For example:
///
/// ```swift
/// let metadata = try BinaryPropertyListReader().read(blob)
/// metadata["NSStoreType"]?.stringValue   // "SQLite"
/// ```
package struct BinaryPropertyListReader: Sendable {
    /// Bounds on what a file may describe.
    package struct Limits: Sendable {
        /// The deepest nesting of arrays and dictionaries; a scalar has depth 0, `[[]]` depth 2.
        package var maxDepth: Int
        /// The most nodes (scalars and containers) in the value, shared references expanded.
        package var maxValueCount: Int

        package init(maxDepth: Int = 512, maxValueCount: Int = 10_000_000) {
            self.maxDepth = maxDepth
            self.maxValueCount = maxValueCount
        }
    }

    package var limits: Limits

    package init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Decodes the top object of a binary property list.
    ///
    /// - Throws: ``PropertyListError`` for anything but a well-formed list within ``limits``.
    /// - Complexity: O(*n*) in the size of `data`.
    ///
    /// The node limit is also proportional to the input (``proportionalValueCount(forSize:)``): a
    /// few hundred bytes of shared references cannot make a reader build millions of nodes.
    package func read(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        let table = try BinaryPropertyListTable([UInt8](data))
        var bounded = self
        bounded.limits.maxValueCount = min(limits.maxValueCount, Self.proportionalValueCount(forSize: data.count))
        return try bounded.read(objectAt: table.topObject, of: table)
    }

    /// The most nodes a list of `size` bytes may expand to: 64 per byte, and never fewer than
    /// 4,096 (an object takes at least one byte, so a list without shared references always fits).
    package static func proportionalValueCount(forSize size: Int) -> Int {
        max(4_096, size.multipliedReportingOverflow(by: 64).overflow ? Int.max : size * 64)
    }

    /// Decodes object `index` of an already opened table and everything it contains, within
    /// ``limits`` — for readers that walk the outer levels of a known shape themselves.
    ///
    /// - Throws: ``PropertyListError`` for an index out of range or anything but a well-formed
    ///   value within ``limits``.
    package func read(objectAt index: Int, of table: BinaryPropertyListTable) throws(PropertyListError) -> PropertyListValue {
        guard index >= 0, index < table.objectCount else {
            throw PropertyListError(.corrupt, "object \(index) out of range (\(table.objectCount) objects)")
        }
        var decoder = Decoder(table: table, limits: limits)
        return try decoder.decode(index)
    }
}

extension BinaryPropertyListReader {
    /// A decoded object with what the limits need: its node count and its nesting height.
    private struct Decoded {
        var value: PropertyListValue
        var nodeCount: Int
        var height: Int
    }

    private enum Slot {
        case unvisited
        case inProgress
        case done(Decoded)
    }

    /// A container whose elements are being decoded.
    private struct Frame {
        let index: Int
        let isDictionary: Bool
        let references: [Int]
        var elements: [PropertyListValue] = []
        var nodeCount = 1
        var height = 1
    }

    /// Walks the object graph depth first with an explicit stack, memoizing each object.
    private struct Decoder {
        let table: BinaryPropertyListTable
        let limits: Limits
        var slots: [Slot]
        var stack: [Frame] = []

        init(table: BinaryPropertyListTable, limits: Limits) {
            self.table = table
            self.limits = limits
            slots = Array(repeating: .unvisited, count: table.objectCount)
        }

        mutating func decode(_ index: Int) throws(PropertyListError) -> PropertyListValue {
            if let decoded = try visit(index) { return decoded.value }
            while let last = stack.indices.last {
                if stack[last].elements.count < stack[last].references.count {
                    let reference = stack[last].references[stack[last].elements.count]
                    if let decoded = try visit(reference) { try append(decoded) }
                } else if let frame = stack.popLast() {
                    let decoded = Decoded(value: try build(frame), nodeCount: frame.nodeCount, height: frame.height)
                    slots[frame.index] = .done(decoded)
                    if stack.isEmpty { return decoded.value }
                    try append(decoded)
                }
            }
            throw PropertyListError(.corrupt, "no top object")  // not reached: the top frame returns
        }

        /// The decoded object `index`, or `nil` after pushing a frame to decode its elements.
        private mutating func visit(_ index: Int) throws(PropertyListError) -> Decoded? {
            switch slots[index] {
            case .done(let decoded):
                return decoded
            case .inProgress:
                throw PropertyListError(.cyclicReference, "object \(index) contains itself")
            case .unvisited:
                switch try table.object(at: index) {
                case .scalar(let value):
                    let decoded = Decoded(value: value, nodeCount: 1, height: 0)
                    slots[index] = .done(decoded)
                    return decoded
                case .array(let references):
                    try push(Frame(index: index, isDictionary: false, references: references))
                case .dictionary(let references):
                    try push(Frame(index: index, isDictionary: true, references: references))
                }
                return nil
            }
        }

        private mutating func push(_ frame: Frame) throws(PropertyListError) {
            guard stack.count < limits.maxDepth else {
                throw PropertyListError(.nestingTooDeep, "containers nest deeper than \(limits.maxDepth)")
            }
            slots[frame.index] = .inProgress
            var frame = frame
            frame.elements.reserveCapacity(frame.references.count)
            stack.append(frame)
        }

        /// Adds a decoded element to the innermost frame, enforcing both limits.
        private mutating func append(_ element: Decoded) throws(PropertyListError) {
            let last = stack.count - 1
            guard last + 1 + element.height <= limits.maxDepth else {
                throw PropertyListError(.nestingTooDeep, "containers nest deeper than \(limits.maxDepth)")
            }
            stack[last].elements.append(element.value)
            stack[last].nodeCount += element.nodeCount
            stack[last].height = max(stack[last].height, element.height + 1)
            guard stack[last].nodeCount <= limits.maxValueCount else {
                throw PropertyListError(.tooManyValues, "value has more than \(limits.maxValueCount) nodes with shared references expanded")
            }
        }

        private func build(_ frame: Frame) throws(PropertyListError) -> PropertyListValue {
            guard frame.isDictionary else { return .array(frame.elements) }
            let half = frame.elements.count / 2
            var dictionary: [String: PropertyListValue] = [:]
            dictionary.reserveCapacity(half)
            for (key, value) in zip(frame.elements[..<half], frame.elements[half...]) {
                guard case .string(let key) = key else {
                    throw PropertyListError(.corrupt, "dictionary (object \(frame.index)) has a key that is not a string")
                }
                guard dictionary.updateValue(value, forKey: key) == nil else {
                    throw PropertyListError(.corrupt, "dictionary (object \(frame.index)) repeats the key \"\(key)\"")
                }
            }
            return .dictionary(dictionary)
        }
    }
}
