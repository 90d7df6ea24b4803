import Foundation
import StoreCore

/// A model as lines of text naming everything a model file can say — entities, properties with
/// every setting, indexes, constraints, fetched properties, configurations, templates — so two
/// models read from different files compare line by line, and a difference reads well.
///
/// For example:
///
/// ```swift
/// #expect(ModelSummary.difference(ModelSummary.lines(compiled), ModelSummary.lines(source)) == nil)
/// ```
public enum ModelSummary {
    public static func lines(_ model: ManagedObjectModel, templates: Bool = true) -> [String] {
        var lines: [String] = []
        for entity in model.entities {
            // No class and NSManagedObject say the same (Core Data records NSManagedObject for both).
            let className = entity.representedClassName == "NSManagedObject" ? nil : entity.representedClassName
            lines.append("entity \(entity.name) parent=\(entity.superentityName ?? "-") abstract=\(entity.isAbstract) class=\(className ?? "-") renaming=\(entity.renamingIdentifier ?? "-") modifier=\(entity.versionHashModifier ?? "-") unique=\(entity.uniquenessConstraints) userInfo=\(sorted(entity.userInfo))")
            for index in entity.indexes.sorted(by: { $0.name < $1.name }) {
                lines.append("  index \(entity.name).\(index.name) \(index.kind) \(index.elements.map { "\($0.property)\($0.ascending ? "" : " desc")" }) partial=\(index.partialIndexPredicate ?? "-")")
            }
            for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) {
                let common = "optional=\(property.isOptional) transient=\(property.isTransient) renaming=\(property.renamingIdentifier ?? "-") modifier=\(property.versionHashModifier ?? "-") userInfo=\(sorted(property.userInfo))"
                if let attribute = property as? AttributeDescription {
                    lines.append("  attribute \(entity.name).\(attribute.name) \(attribute.attributeType) \(common) default=\(attribute.defaultValue) rules=\(attribute.validationRules) external=\(attribute.allowsExternalBinaryDataStorage) preserved=\(attribute.preservesValueInHistoryOnDeletion) class=\(attribute.customClassName ?? "-") derivation=\(attribute.derivationExpression ?? "-")")
                } else if let relationship = property as? RelationshipDescription {
                    lines.append("  relationship \(entity.name).\(relationship.name) → \(relationship.destinationEntityName) inverse=\(relationship.inverseName ?? "-") toMany=\(relationship.isToMany) ordered=\(relationship.isOrdered) min=\(relationship.minCount) max=\(relationship.maxCount) delete=\(relationship.deleteRule) \(common)")
                }
            }
            for fetched in entity.fetchedProperties.sorted(by: { $0.name < $1.name }) {
                lines.append("  fetched \(entity.name).\(fetched.name) \(request(fetched.fetchRequest)) userInfo=\(sorted(fetched.userInfo))")
            }
        }
        for (name, members) in model.configurations.sorted(by: { $0.key < $1.key }) where !members.isEmpty {
            lines.append("configuration \(name) \(members.sorted())")
        }
        if templates {
            for (name, template) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
                lines.append("template \(name) \(request(template))")
            }
        }
        lines.append("versionIdentifiers \(model.versionIdentifiers.sorted())")
        return lines
    }

    /// The lines only in `actual` and the lines only in `expected`, or `nil` when they are equal.
    public static func difference(_ actual: [String], _ expected: [String]) -> String? {
        guard actual != expected else { return nil }
        let extra = actual.filter { !expected.contains($0) }
        let missing = expected.filter { !actual.contains($0) }
        return "only in the compiled model:\n" + extra.joined(separator: "\n") + "\nonly in the expected model:\n" + missing.joined(separator: "\n")
    }

    public static func request(_ request: StoreFetchRequest) -> String {
        "\(request.entityName) predicate=\(request.predicate.map { "\($0)" } ?? "-") limit=\(request.fetchLimit) offset=\(request.fetchOffset) batch=\(request.fetchBatchSize) distinct=\(request.returnsDistinctResults) subentities=\(request.includesSubentities) pending=\(request.includesPendingChanges) values=\(request.includesPropertyValues) faults=\(request.returnsObjectsAsFaults) result=\(request.resultType)"
    }

    private static func sorted(_ info: [String: String]) -> String {
        info.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}
