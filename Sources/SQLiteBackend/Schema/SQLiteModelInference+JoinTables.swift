import Foundation
import StoreCore
import StoreSQL

/// Many-to-many relationships from Core Data's join tables.
extension SQLiteModelInference {
    /// A many-to-many pair from `Z_<owner><RELATIONSHIP>`: the member column is
    /// `Z_<member><RELATIONSHIP>`, the other `Z_<owner><INVERSE>`; `Z_FOK_` columns mark ordered sides.
    func addJoinTable(
        _ table: String, columns: [ColumnInfo], owner: String, relationship: String, names: [Int64: String],
        to builder: inout InferredModelBuilder
    ) throws -> Bool {
        let keys = columns.map(\.name).filter { !$0.hasPrefix("Z_FOK_") }
        let orders = Set(columns.map(\.name).filter { $0.hasPrefix("Z_FOK_") })
        guard keys.count == 2 else {
            builder.notes.append("table \(table) looks like a join table but has \(keys.count) key columns; left out")
            return false
        }
        let parsed = keys.compactMap { key in Self.numbered(key, prefix: "Z_").map { (column: key, number: $0.0, name: $0.1) } }
        guard parsed.count == 2,
            let member = parsed.first(where: { $0.name == relationship || $0.name == relationship + "1" }),
            let ownerSide = parsed.first(where: { $0.column != member.column }),
            let memberEntity = names[member.number], names[ownerSide.number] == owner
        else {
            builder.notes.append("table \(table) looks like a join table but its columns do not name both sides; left out")
            return false
        }
        let name = relationship.lowercased(), inverse = ownerSide.name.lowercased()
        guard name != inverse ? name > inverse : owner <= memberEntity else {
            builder.notes.append("the many-to-many pair in \(table) cannot be named so that its table keeps that name; left out")
            return false
        }
        let ordered = orders.contains("Z_FOK_" + member.column.dropFirst(2))
        let inverseOrdered = orders.contains("Z_FOK_" + ownerSide.column.dropFirst(2))
        guard builder.addRelationship(name, from: owner, to: memberEntity, isToMany: true, isOrdered: ordered, inverse: inverse) else { return false }
        builder.addRelationship(inverse, from: memberEntity, to: owner, isToMany: true, isOrdered: inverseOrdered, inverse: name)
        return true
    }
}
