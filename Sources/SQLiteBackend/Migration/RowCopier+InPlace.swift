import StoreCore
import StoreSQL

extension RowCopier {
    /// The `ALTER TABLE` statements that bring a root table to the destination's layout without
    /// copying its rows, or `nil` when its rows must be copied. A table is changed in place when
    /// it holds one entity (no sub-entities on either side), carried over under the same table
    /// name and entity number with its keys unchanged, and every destination column is a source
    /// column as it was (renamed at most) or a new column with no value. Source columns nothing
    /// reads are dropped.
    func inPlaceChanges(of root: SQLSchema.RootTable) throws -> [String]? {
        guard let entity = request.destinationModel.entitiesByName[root.rootEntity], entity.subentities.isEmpty,
            let selection = try rowSelection(into: entity), selection.values.isEmpty,
            let sourceEntity = request.sourceModel.entitiesByName[selection.from.name], sourceEntity.subentities.isEmpty,
            selection.from.table == root.name, selection.from.number == selection.to.number,
            let sourceRoot = source.rootTables.first(where: { $0.name == root.name }),
            selection.expressions.prefix(3) == ["s.Z_PK", String(selection.to.number), "s.Z_OPT"]
        else { return nil }
        let sourceTypes = Dictionary(sourceRoot.columns.map { ($0.name, $0.type) }) { first, _ in first }
        let destinationTypes = Dictionary(root.columns.map { ($0.name, $0.type) }) { first, _ in first }
        var renames: [(from: String, to: String)] = []
        var additions: [String] = []
        var read: Set<String> = []
        for (column, expression) in zip(selection.columns.dropFirst(3), selection.expressions.dropFirst(3)) {
            guard let type = destinationTypes[column] else { return nil }
            if expression == "NULL" {
                guard sourceTypes[column] == nil else { return nil }
                additions.append("ALTER TABLE \(root.name) ADD COLUMN \(column) \(type)")
                continue
            }
            guard expression.hasPrefix("s."), case let sourceColumn = String(expression.dropFirst(2)),
                sourceTypes[sourceColumn] == type, read.insert(sourceColumn).inserted
            else { return nil }
            if sourceColumn != column {
                guard sourceTypes[column] == nil else { return nil }
                renames.append((sourceColumn, column))
            }
        }
        guard Set(root.columns.map(\.name)) == Set(selection.columns.dropFirst(3)) else { return nil }
        let drops = sourceRoot.columns.map(\.name).filter { !read.contains($0) }.map { "ALTER TABLE \(root.name) DROP COLUMN \($0)" }
        return drops + renames.map { "ALTER TABLE \(root.name) RENAME COLUMN \($0.from) TO \($0.to)" } + additions
    }
}
