import StoreCore

extension SQLSchema {
    /// The members of a to-many relationship of the owners `ownerTest` selects (SQLite: `= ?1` for
    /// one owner, `IN (SELECT value FROM json_each(?1))` for many; PostgreSQL: `= ANY($1::BIGINT[])`):
    /// rows of `memberColumns` (over the destination alias `t0`) followed by the owner's key,
    /// grouped by owner, in order (the `Z_FOK_` order of an ordered relationship, else by key).
    ///
    /// For example, `Post.comments` (a foreign key in `ZCOMMENT`) for `= ?`:
    ///
    /// ```
    /// SELECT t0.Z_PK, t0.Z_ENT, t0.ZPOST FROM ZCOMMENT t0 WHERE t0.ZPOST = ? ORDER BY t0.ZPOST, t0.Z_PK
    /// ```
    package func membersQuery(_ storage: ToManyStorage, ownerTest: String, memberColumns: [String] = ["t0.Z_PK", "t0.Z_ENT"]) -> String {
        switch storage {
        case .foreignKey(_, let table, let column, let orderColumn):
            let order = orderColumn.map { "t0.\(column), t0.\($0), t0.Z_PK" } ?? "t0.\(column), t0.Z_PK"
            return "SELECT \((memberColumns + ["t0.\(column)"]).joined(separator: ", ")) FROM \(table) t0 WHERE t0.\(column) \(ownerTest) ORDER BY \(order)"
        case .joinTable(let destination, let joinTable, let ownerColumn, let memberColumn, let orderColumn):
            let target = tables[destination]?.table ?? Self.tableName(destination)
            let order = orderColumn.map { "j.\(ownerColumn), j.\($0), t0.Z_PK" } ?? "j.\(ownerColumn), t0.Z_PK"
            return "SELECT \((memberColumns + ["j.\(ownerColumn)"]).joined(separator: ", ")) FROM \(joinTable) j JOIN \(target) t0 ON t0.Z_PK = j.\(memberColumn) WHERE j.\(ownerColumn) \(ownerTest) ORDER BY \(order)"
        }
    }
}
