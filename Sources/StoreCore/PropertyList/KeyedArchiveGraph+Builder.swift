import Foundation

extension KeyedArchiveGraph {
    /// Writes `NSKeyedArchiver` archives of any classes — objects given as a class name and
    /// fields — with Foundation's value classes written by ``KeyedArchive``'s encoder. Objects
    /// may refer to each other in cycles: ``reserve()`` a reference first, ``set(_:_:superclasses:fields:)``
    /// it later. The archive reads back with ``KeyedArchiveGraph`` (and, for the classes Apple's
    /// frameworks know, with Foundation's unarchiver).
    ///
    /// For example:
    ///
    /// ```swift
    /// var builder = KeyedArchiveGraph.Builder()
    /// let name = try builder.value("Author")
    /// let entity = builder.add("NSEntityDescription", fields: ["NSEntityName": .uid(name)])
    /// let data = builder.archive(root: entity)
    /// ```
    package struct Builder {
        private var writer = KeyedArchive.ArchiveWriter()

        package init() {}

        /// Adds a value of one of Foundation's value classes (see ``KeyedArchive/archive(_:)``).
        package mutating func value(_ value: Any) throws(PropertyListError) -> UInt64 {
            try writer.add(value, depth: 0)
        }

        /// Adds an object of class `className`.
        package mutating func add(_ className: String, superclasses: [String] = [], fields: [String: PropertyListValue]) -> UInt64 {
            let object = writer.instance(className, fields, superclasses: superclasses)
            return writer.append(object)
        }

        /// A reference to fill in later with ``set(_:_:superclasses:fields:)``.
        package mutating func reserve() -> UInt64 {
            writer.append(.string("$null"))
        }

        /// Fills in a reserved reference.
        package mutating func set(_ reference: UInt64, _ className: String, superclasses: [String] = [], fields: [String: PropertyListValue]) {
            let object = writer.instance(className, fields, superclasses: superclasses)
            writer.objects[Int(reference)] = object
        }

        /// The archive, with `root` under `$top`.
        package func archive(root: UInt64) -> Data {
            BinaryPropertyListWriter().write(.dictionary([
                "$version": .integer(100_000),
                "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": .uid(root)]),
                "$objects": .array(writer.objects),
            ]))
        }
    }
}
