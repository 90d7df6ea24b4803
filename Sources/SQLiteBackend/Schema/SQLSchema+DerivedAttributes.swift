import StoreCore
import StoreSQL

extension SQLSchema {
    /// One trigger that keeps a derived attribute up to date.
    struct DerivedAttributeTrigger: Equatable {
        /// Core Data's name for the trigger's role (`Z_DA_<TABLE>_<Entity>_<attribute>_<ROLE>`),
        /// so that Core Data, which drops and recreates triggers by these names, replaces ours.
        let name: String
        let sql: String
        /// `Z_DA_<owner table>_<Entity>_<attribute>`'s `_<Entity>_<attribute>` part: how an
        /// existing trigger (ours or Core Data's) for the same attribute is recognized.
        let attributeMarker: String
    }

    /// The triggers that compute the model's derived attributes in SQL on every write — as
    /// Core Data's SQLite store does — so saves, batch requests and any other writer keep them
    /// current. Each recomputes the whole value of the rows a change touches (no increments).
    ///
    /// For example, `Folder.itemCount = items.@count` gives a trigger on `ZITEM` inserts:
    ///
    /// ```sql
    /// CREATE TRIGGER IF NOT EXISTS Z_DA_ZITEM_Folder_itemCount_PARAMETER_INSERT AFTER INSERT ON ZITEM
    /// FOR EACH ROW BEGIN UPDATE ZFOLDER SET ZITEMCOUNT = (SELECT COUNT(*) FROM ZITEM AS m
    /// WHERE m.ZFOLDER = ZFOLDER.Z_PK) WHERE Z_PK = NEW.ZFOLDER; END
    /// ```
    func derivedAttributeTriggers(model: ManagedObjectModel) -> [DerivedAttributeTrigger] {
        var triggers: [DerivedAttributeTrigger] = []
        for entity in model.entities {
            for case let attribute as AttributeDescription in entity.declaredProperties {
                guard let derivation = attribute.derivation, let table = tables[entity.name],
                    let column = table.column(for: attribute.name)?.name
                else { continue }
                let owner = DerivedOwner(entity: entity, table: table, column: column, attribute: attribute.name)
                triggers += self.triggers(for: derivation, owner: owner)
            }
        }
        return triggers
    }

    /// The attribute's table, column and the rows of its entity (a sub-entity shares its table).
    private struct DerivedOwner {
        let entity: EntityDescription
        let table: EntityTable
        let column: String
        let attribute: String

        var marker: String { "_\(entity.name)_\(attribute)" }

        /// ` AND Z_ENT IN (…)` when the table holds other entities' rows too.
        var entityCondition: String {
            table.sharesTable ? " AND Z_ENT IN (\(table.entityNumbers.map(String.init).joined(separator: ", ")))" : ""
        }

        /// `WHEN NEW.Z_ENT IN (…)` for a trigger on the owner's table.
        var whenOwnRow: String {
            table.sharesTable ? " WHEN NEW.Z_ENT IN (\(table.entityNumbers.map(String.init).joined(separator: ", ")))" : ""
        }

        func name(on triggerTable: String, _ role: String) -> String { "Z_DA_\(triggerTable)\(marker)_\(role)" }

        /// `UPDATE <table> SET <column> = <value> WHERE <rows>`.
        func update(_ value: String, where rows: String) -> String {
            "UPDATE \(table.table) SET \(column) = \(value) WHERE \(rows)\(entityCondition);"
        }
    }

    private func trigger(_ owner: DerivedOwner, on triggerTable: String, _ role: String, _ event: String, when: String = "", _ body: String) -> DerivedAttributeTrigger {
        let name = owner.name(on: triggerTable, role)
        return DerivedAttributeTrigger(
            name: name,
            sql: "CREATE TRIGGER IF NOT EXISTS \(name) AFTER \(event) ON \(triggerTable) FOR EACH ROW\(when) BEGIN \(body) END",
            attributeMarker: owner.marker)
    }

    private func triggers(for derivation: AttributeDerivation, owner: DerivedOwner) -> [DerivedAttributeTrigger] {
        let own = owner.table.table
        switch derivation {
        case .now:
            let body = owner.update("NSCoreDataNow()", where: "Z_PK = NEW.Z_PK")
            return [
                trigger(owner, on: own, "INSERT", "INSERT", when: owner.whenOwnRow, body),
                trigger(owner, on: own, "UPDATE", "UPDATE OF Z_OPT", when: owner.whenOwnRow, body),
            ]
        case .value(let keys, let function):
            let wrap: (String) -> String = { sql in function.map { "\(Self.sqlFunction(for: $0))(\(sql))" } ?? sql }
            if keys.count == 1 {
                guard let source = owner.table.column(for: keys[0])?.name else { return [] }
                let body = owner.update(wrap(source), where: "Z_PK = NEW.Z_PK")
                return [
                    trigger(owner, on: own, "INSERT", "INSERT", when: owner.whenOwnRow, body),
                    trigger(owner, on: own, "UPDATE", "UPDATE OF \(source)", when: owner.whenOwnRow, body),
                ]
            }
            guard let foreignKey = owner.table.column(for: keys[0]), case .toOne(let destinationName, _) = foreignKey.kind,
                let destination = tables[destinationName], let parameter = destination.column(for: keys[1])?.name
            else { return [] }
            let value = "(SELECT \(wrap("d.\(parameter)")) FROM \(destination.table) AS d WHERE d.Z_PK = \(own).\(foreignKey.name))"
            let fromOwner = owner.update(value, where: "Z_PK = NEW.Z_PK")
            let fromDestination = owner.update(value, where: "\(foreignKey.name) = NEW.Z_PK")
            return [
                trigger(owner, on: own, "SOURCE_INSERT", "INSERT", when: owner.whenOwnRow, fromOwner),
                trigger(owner, on: own, "SOURCE_UPDATE", "UPDATE OF \(foreignKey.name)", when: owner.whenOwnRow, fromOwner),
                trigger(owner, on: destination.table, "PARAMETER_INSERT", "INSERT", fromDestination),
                trigger(owner, on: destination.table, "PARAMETER_UPDATE", "UPDATE OF \(parameter)", fromDestination),
            ]
        case .count(let relationship):
            return toManyTriggers(owner: owner, relationship: relationship, key: nil) { members, _ in
                "(SELECT COUNT(*) FROM \(members))"
            }
        case .aggregate(let aggregate, let relationship, let key):
            return toManyTriggers(owner: owner, relationship: relationship, key: key) { members, value in
                let function = switch aggregate {
                case .sum: "IFNULL(SUM(\(value ?? "NULL")), 0)"
                case .min: "MIN(\(value ?? "NULL"))"
                case .max: "MAX(\(value ?? "NULL"))"
                }
                return "(SELECT \(function) FROM \(members))"
            }
        }
    }

    /// The triggers of a count or aggregate over a to-many relationship. `select` builds the
    /// value's subquery from the member rows (`FROM …`) and the members' value column (`nil`
    /// for a count).
    private func toManyTriggers(
        owner: DerivedOwner, relationship: String, key: String?, select: (String, String?) -> String
    ) -> [DerivedAttributeTrigger] {
        let own = owner.table.table
        guard let storage = owner.table.toMany[relationship], let destination = tables[storage.destination] else { return [] }
        let valueColumn = key.flatMap { destination.column(for: $0)?.name }
        if key != nil, valueColumn == nil { return [] }
        switch storage {
        case .foreignKey(_, let memberTable, let ownerColumn, _):
            let value = select("\(memberTable) AS m WHERE m.\(ownerColumn) = \(own).Z_PK", valueColumn.map { "m.\($0)" })
            let changed = ([ownerColumn] + (valueColumn.map { [$0] } ?? [])).joined(separator: ", ")
            return [
                trigger(owner, on: own, "SOURCE_INSERT", "INSERT", when: owner.whenOwnRow, owner.update(value, where: "Z_PK = NEW.Z_PK")),
                trigger(owner, on: memberTable, "PARAMETER_INSERT", "INSERT", owner.update(value, where: "Z_PK = NEW.\(ownerColumn)")),
                trigger(owner, on: memberTable, "PARAMETER_DELETE", "DELETE", owner.update(value, where: "Z_PK = OLD.\(ownerColumn)")),
                trigger(owner, on: memberTable, "PARAMETER_UPDATE", "UPDATE OF \(changed)",
                    owner.update(value, where: "Z_PK = OLD.\(ownerColumn)") + " " + owner.update(value, where: "Z_PK = NEW.\(ownerColumn)")),
            ]
        case .joinTable(_, let joinTable, let ownerColumn, let memberColumn, _):
            let members = valueColumn == nil
                ? "\(joinTable) AS m WHERE m.\(ownerColumn) = \(own).Z_PK"
                : "\(joinTable) AS m JOIN \(destination.table) AS d ON d.Z_PK = m.\(memberColumn) WHERE m.\(ownerColumn) = \(own).Z_PK"
            let value = select(members, valueColumn.map { "d.\($0)" })
            var triggers = [
                trigger(owner, on: own, "SOURCE_INSERT", "INSERT", when: owner.whenOwnRow, owner.update(value, where: "Z_PK = NEW.Z_PK")),
                trigger(owner, on: joinTable, "PARAMETER_INSERT", "INSERT", owner.update(value, where: "Z_PK = NEW.\(ownerColumn)")),
                trigger(owner, on: joinTable, "PARAMETER_DELETE", "DELETE", owner.update(value, where: "Z_PK = OLD.\(ownerColumn)")),
            ]
            if let valueColumn {
                triggers.append(trigger(owner, on: destination.table, "PARAMETER_UPDATE", "UPDATE OF \(valueColumn)",
                    owner.update(value, where: "Z_PK IN (SELECT \(ownerColumn) FROM \(joinTable) WHERE \(memberColumn) = NEW.Z_PK)")))
            }
            return triggers
        }
    }

    /// The SQL function (registered on every connection, under Core Data's names) for a
    /// derivation's string function.
    static func sqlFunction(for function: AttributeDerivation.TextFunction) -> String {
        switch function {
        case .lowercase: "NSCoreDataToLower"
        case .uppercase: "NSCoreDataToUpper"
        case .canonical: "NSCoreDataCanonical"
        }
    }
}
