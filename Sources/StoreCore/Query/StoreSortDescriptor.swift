/// An ordering of fetch results by a key path — Core Data's `NSSortDescriptor` as a value.
///
/// For example:
///
/// ```swift
/// request.sortDescriptors = [.descending("timestamp"), .ascending("title", comparison: .localizedCaseInsensitive)]
/// ```
public struct StoreSortDescriptor: Sendable, Hashable {
    /// How strings are compared.
    public enum Comparison: Sendable, Hashable {
        /// Code-point order for strings, natural order for everything else.
        case `default`
        /// Ignoring case.
        case caseInsensitive
        /// In the user's locale's collation order.
        case localized
        /// In the locale's collation order, ignoring case.
        case localizedCaseInsensitive
    }

    /// The key path the results are ordered by (Core Data's `NSSortDescriptor.key`).
    public var keyPath: String
    /// Whether smaller values come first (Core Data's `ascending`).
    public var ascending: Bool
    /// How strings are compared (Core Data's comparison selector, such as `localizedCompare:`).
    public var comparison: Comparison

    /// Creates a sort descriptor; `.ascending(_:)` and `.descending(_:)` are the shorter way.
    public init(keyPath: String, ascending: Bool = true, comparison: Comparison = .default) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// Ascending order by `keyPath`.
    public static func ascending(_ keyPath: String, comparison: Comparison = .default) -> StoreSortDescriptor {
        StoreSortDescriptor(keyPath: keyPath, ascending: true, comparison: comparison)
    }

    /// Descending order by `keyPath`.
    public static func descending(_ keyPath: String, comparison: Comparison = .default) -> StoreSortDescriptor {
        StoreSortDescriptor(keyPath: keyPath, ascending: false, comparison: comparison)
    }
}
