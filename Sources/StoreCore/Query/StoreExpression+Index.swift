/// Index subscripts, as NSExpression's `objectFrom:withIndex:`: `reports[FIRST]`,
/// `reports[LAST]`, `reports[SIZE]`, `reports[2]`, `%@[FIRST]`.
///
/// The tree is `.function("objectFrom:withIndex:", [collection, index])`; the keywords `FIRST`,
/// `LAST` and `SIZE` are the markers ``indexKeyword(_:)`` (`.function("FIRST", [])`…), which
/// only the subscript syntax produces (the words are reserved, so `FIRST()` does not parse).
///
/// For example:
///
/// ```swift
/// let first = StoreExpression.index(.keyPath("reports"), .first)       // reports[FIRST]
/// let third = StoreExpression.index(.keyPath("reports"), .constant(2))  // reports[2]
/// ```
extension StoreExpression {
    /// The selector of index subscripts.
    public static let indexFunctionName = "objectFrom:withIndex:"

    /// The symbolic indexes of a subscript.
    public enum IndexKeyword: String, Sendable, CaseIterable {
        /// The first element (of an unordered to-many relationship: the one with the lowest key).
        case first = "FIRST"
        /// The last element (of an unordered to-many relationship: the one with the highest key).
        case last = "LAST"
        /// The number of elements.
        case size = "SIZE"
    }

    /// The marker of a symbolic index in the tree.
    public static func indexKeyword(_ keyword: IndexKeyword) -> StoreExpression {
        .function(keyword.rawValue, [])
    }

    /// `collection[keyword]`.
    public static func index(_ collection: StoreExpression, _ keyword: IndexKeyword) -> StoreExpression {
        .function(indexFunctionName, [collection, indexKeyword(keyword)])
    }

    /// `collection[index]`, the element at a zero-based position.
    public static func index(_ collection: StoreExpression, _ index: StoreExpression) -> StoreExpression {
        .function(indexFunctionName, [collection, index])
    }

    /// The keyword this expression marks, if it is a symbolic index.
    package var symbolicIndex: IndexKeyword? {
        guard case .function(let name, let args) = self, args.isEmpty else { return nil }
        return IndexKeyword(rawValue: name)
    }
}
