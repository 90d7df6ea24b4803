import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// An index path of an item in a section, as UIKit spells it (Foundation on Linux lacks it).
    ///
    /// For example:
    ///
    /// ```swift
    /// let first = IndexPath(item: 0, section: 0)
    /// ```
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section of a two-index path.
    public var section: Int { self[0] }
    /// The item (row) of a two-index path.
    public var item: Int { self[1] }
}
#endif
