/// An index on an entity's properties, recorded in the model for stores that build indexes
/// (the SQLite store creates them; atomic stores ignore them).
///
/// For example:
///
/// ```swift
/// EntityDescription("Quake", indexes: [
///     FetchIndexDescription(name: "byTime", elements: [.init("time", ascending: false)]),
///     FetchIndexDescription(name: "byLocation", elements: [.init("latitude"), .init("longitude")], kind: .rTree),
/// ]) { … }
/// ```
public struct FetchIndexDescription: Sendable, Hashable {
    /// How the index is organised.
    public enum Kind: Sendable, Hashable {
        /// An ordinary sorted index (Core Data's `NSFetchIndexElementType.binary`).
        case binary
        /// An R-tree for range searches over several numbers, such as latitude and longitude (Core Data's
        /// `.rTree`); the SQLite store builds it as an R-tree virtual table for `indexed:by:` ranges.
        case rTree
    }

    /// One indexed property.
    ///
    /// For example:
    ///
    /// ```swift
    /// let newestFirst = FetchIndexDescription.Element("time", ascending: false)
    /// let index = FetchIndexDescription(name: "byPlaceAndTime", elements: [.init("place"), newestFirst])
    /// ```
    public struct Element: Sendable, Hashable {
        /// The name of the indexed property, a stored attribute or to-one relationship (Core Data's
        /// `NSFetchIndexElementDescription.property`).
        public var property: String
        /// Whether the index orders the property ascending (Core Data's `isAscending`).
        public var ascending: Bool
        /// An indexed property, ascending unless `ascending` is false.
        public init(_ property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    /// The index's name; SQL stores create it as `Z_<Entity>_<name>` (Core Data's `name`).
    public var name: String
    /// The indexed properties, in order; the model refuses an index with none, or with one the entity
    /// does not have.
    public var elements: [Element]
    /// How the index is organised: binary (the default) or R-tree.
    public var kind: Kind
    /// A predicate (format string) restricting the index to some rows (a partial index).
    public var partialIndexPredicate: String?

    /// Creates an index description (Core Data's `NSFetchIndexDescription`), binary unless `kind` says
    /// otherwise.
    public init(name: String, elements: [Element], kind: Kind = .binary, partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.kind = kind
        self.partialIndexPredicate = partialIndexPredicate
    }
}
