import Foundation

extension IndexPath {
    /// A two-index path (section, item), spelled without UIKit's or AppKit's initializer so that
    /// the controller compiles on every platform.
    package static func section(_ section: Int, item: Int) -> IndexPath { IndexPath(indexes: [section, item]) }
    /// The section of a two-index path.
    package var sectionIndex: Int { self[0] }
    /// The item of a two-index path.
    package var itemIndex: Int { self[1] }
}

// UIKit and AppKit give every app on Apple platforms these; Foundation elsewhere lacks them.
#if !canImport(Darwin)
extension IndexPath {
    /// An index path of an item in a section, as UIKit spells it (Foundation on Linux lacks it;
    /// on Apple platforms UIKit and AppKit supply it).
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
