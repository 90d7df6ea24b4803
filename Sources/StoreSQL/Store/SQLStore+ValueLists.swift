import Foundation
import StoreCore

/// Rows looked up by a list of values, for every SQL store (``ValueListFetching``).
extension SQLStore {
    /// The rows of `entityName` and its sub-entities whose `key` holds one of `values`: the
    /// snapshots an object fetch with the predicate `key IN {values…}` returns, compiled from the
    /// values as they are (``SQLCompiler/selectObjects(ofEntity:whose:isAmong:columns:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// let rows = try store.snapshots(ofEntity: "Item", whose: "code", isAmong: [.string("c1"), .string("c2")])
    /// ```
    package func snapshots(ofEntity entityName: String, whose key: String, isAmong values: [StoreValue]) throws -> [StoreSnapshot] {
        let layout = try rows.layout(for: entityName, includesSubentities: true)
        let query = try compiler.selectObjects(ofEntity: entityName, whose: key, isAmong: values, columns: layout.selectList)
        let rows = rows, external = externalBinaryReader
        return try read { connection in
            try connection.collect(query.sql, query.bindings) { try rows.snapshot(from: $0, layout: layout, external: external, known: nil) }
        }
    }
}
