import Foundation
import StoreCore

/// The set-based statements of batch updates and deletes.
extension SQLCompiler {
    /// `UPDATE <table> AS t0 SET … , Z_OPT = Z_OPT + 1 WHERE …`: each value is a constant
    /// (checked against its attribute and bound as its column stores it) or an expression over the
    /// entity's own attributes. A predicate that needs joins selects the rows by key instead.
    ///
    /// For example, `magnitude = magnitude * 2` where `magnitude < 2` on `Quake`:
    ///
    /// ```
    /// UPDATE ZQUAKE AS t0 SET ZMAGNITUDE = (t0.ZMAGNITUDE * ?1), Z_OPT = Z_OPT + 1 WHERE t0.ZMAGNITUDE < ?2
    /// ```
    package func batchUpdate(_ request: BatchUpdateRequest, attributes: [String: AttributeDescription], table: EntityTable, returning: String?) throws -> (update: CompiledQuery, selection: CompiledQuery) {
        var fetch = StoreFetchRequest(entityName: request.entityName, resultType: .managedObjectID)
        fetch.predicate = request.predicate
        fetch.includesSubentities = request.includesSubentities
        let filtered = try FilteredFetch(fetch, schema: schema, model: model)
        let translator = filtered.translator
        let joinsForPredicate = filtered.level.from.count
        let entity = filtered.entity
        var assignments: [String] = []
        for (name, expression) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
            guard let attribute = attributes[name], let column = table.column(for: name) else { continue }
            if translator.isConstant(expression) {
                let value = try PredicateEvaluator().value(of: expression, on: EmptyEvaluationSource()).storeValue
                let checked = try BatchUpdateCheck.checked(value, for: attribute, entity: entity, objectID: nil)
                var encoded = schema.dialect.encode(checked)
                if case .attribute(_, true) = column.kind, case .data(let data) = checked {
                    encoded = schema.dialect.inlineBinary(data)  // kept in the row
                }
                assignments.append("\(column.name) = \(translator.bind(encoded))")
            } else {
                let operand = try translator.operand(expression, filtered.scope)
                guard !operand.isCollection, filtered.level.from.count == joinsForPredicate else {
                    throw FetchError(.unsupported, "a batch update computes values from \(entity.name)'s own attributes; '\(name)' needs a relationship or collection")
                }
                var sql = operand.scalar.sql
                switch attribute.attributeType {
                case .integer16, .integer32, .integer64, .boolean: sql = "CAST(\(sql) AS \(schema.dialect.integerType))"
                case .double, .float: sql = "CAST(\(sql) AS \(schema.dialect.realType))"
                default: break
                }
                assignments.append("\(column.name) = \(sql)")
            }
        }
        assignments.append("Z_OPT = Z_OPT + 1")
        let condition: String
        if joinsForPredicate == 1 {
            condition = filtered.level.conditions.isEmpty ? "" : " WHERE " + filtered.level.conditions.joined(separator: " AND ")
        } else {
            condition = " WHERE t0.Z_PK IN (\(filtered.level.select("t0.Z_PK")))"
        }
        let selection = translator.finish("SELECT t0.Z_ENT, t0.Z_PK FROM \(table.table) t0" + condition)
        let update = translator.finish("UPDATE \(table.table) AS t0 SET \(assignments.joined(separator: ", "))" + condition + (returning.map { " RETURNING \($0)" } ?? ""))
        return (update, selection)
    }
}

/// A source with no properties, for evaluating constant expressions (`now()`, `2 + 3`).
package struct EmptyEvaluationSource: PredicateEvaluationSource {
    package var evaluationObjectID: ManagedObjectID? { nil }
    package func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        throw FetchError(.invalidKeyPath, "a constant expression reads no key ('\(key)')")
    }
}
