import Foundation

extension SnapshotGraph {
    /// Computes the derived attributes after a change set was applied, as Core Data's stores do
    /// on save: every row of an entity with derived attributes is brought up to date (the graph
    /// is in memory, and a file store rewrites every row anyway), and `now()` is set on the rows
    /// the change set inserted or updated. Versions do not change: a derived value is the store's.
    mutating func computeDerivedAttributes(after changes: StoreChangeSet) {
        guard !derivedAttributes.isEmpty else { return }
        let touched = [changes.inserted, changes.updated, changes.deleted].joined()
        guard touched.contains(where: { derivedAttributes.affectingEntityNames.contains($0.objectID.entityName) }) else { return }
        let saved = Set([changes.inserted, changes.updated].joined().map(\.objectID))
        let now = Date()
        for (entityName, entries) in derivedAttributes.entries {
            guard let count = tables[entityName]?.rows.count else { continue }
            for position in 0..<count {
                guard var row = tables[entityName]?.rows[position] else { continue }
                var changed = false
                for entry in entries {
                    let computed: StoreValue
                    if let value = entry.derivation.value(for: row, resolve: { self[$0] }) {
                        computed = value
                    } else if saved.contains(row.objectID) {
                        computed = AttributeDerivation.nowValue(at: now, as: entry.attribute.attributeType)
                    } else {
                        continue
                    }
                    let value = entry.attribute.attributeType.coerce(computed) ?? .null
                    if row[entry.index] != value {
                        row.setValue(value, at: entry.index)
                        changed = true
                    }
                }
                if changed { tables[entityName]?.rows[position] = row }
            }
        }
    }
}
