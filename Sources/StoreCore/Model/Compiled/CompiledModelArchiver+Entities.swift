import Foundation

extension CompiledModelArchiver {
    /// One `NSEntityDescription`: name and class, model, parent and sub-entities, declared
    /// properties and fetched properties, user info, uniqueness constraints and indexes.
    mutating func encodeEntity(_ entity: EntityDescription) throws(PropertyListError) {
        guard let reference = entityRefs[entity.name] else { return }
        var fields: [String: PropertyListValue] = [
            "NSEntityName": try string(entity.name),
            "NSClassNameForEntity": try string(entity.representedClassName ?? "NSManagedObject"),
            "NSManagedObjectModel": .uid(modelRef),
            "NSSuperentity": .uid(entity.superentityName.flatMap { entityRefs[$0] } ?? 0),
            "NSVersionHashModifier": try string(entity.versionHashModifier),
            // Core Data records the name when there is no renaming identifier.
            "NSRenamingIdentifier": try string(entity.renamingIdentifier ?? entity.name),
        ]
        if entity.isAbstract { fields["NSIsAbstract"] = .boolean(true) }
        fields["NSSubentities"] = try dictionary(entity.subentities.sorted { $0.name < $1.name }.map { ($0.name, entityRefs[$0.name] ?? 0) })
        let indexed = options.oldLayout
            ? Set(entity.indexes.compactMap { $0.elements.count == 1 ? $0.elements.first?.property : nil })
            : Self.indexedAttributes(of: entity)
        var properties: [(String, UInt64)] = []
        for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) {
            let key = "\(entity.name).\(property.name)"
            guard let propertyRef = propertyRefs[key] else { continue }
            guard try encodeProperty(property, entity: entity, isIndexed: indexed.contains(property.name), at: propertyRef) else { continue }
            properties.append((property.name, propertyRef))
        }
        if options.listInheritedProperties {
            var ancestor = entity.superentity
            while let current = ancestor {
                for property in current.declaredProperties {
                    if let inherited = propertyRefs["\(current.name).\(property.name)"] { properties.append((property.name, inherited)) }
                }
                ancestor = current.superentity
            }
        }
        for fetched in entity.fetchedProperties {
            do {
                properties.append((fetched.name, try encodeFetchedProperty(fetched, entity: reference)))
            } catch let error as PropertyListError {
                throw error
            } catch {
                leftOut.append("fetched property \(entity.name).\(fetched.name): \(error)")
            }
        }
        fields["NSProperties"] = try dictionary(properties)
        fields["NSUserInfo"] = try userInfo(entity.userInfo)
        if !entity.uniquenessConstraints.isEmpty {
            var tuples: [UInt64] = []
            for constraint in entity.uniquenessConstraints { tuples.append(try nameList(constraint)) }
            fields["NSUniqueTuples"] = array(tuples, mutable: true)
        }
        if options.oldLayout {
            var compounds: [UInt64] = []
            for index in entity.indexes where index.elements.count > 1 { compounds.append(try nameList(index.elements.map(\.property))) }
            fields["NSCompoundIndexes"] = array(compounds, mutable: true)
        } else if !entity.indexes.isEmpty {
            try encodeIndexes(of: entity, at: reference, indexed: indexed, into: &fields)
        }
        builder.set(reference, "NSEntityDescription", fields: fields)
    }

    /// An `NSMutableArray` of property names.
    private mutating func nameList(_ names: [String]) throws(PropertyListError) -> UInt64 {
        var references: [UInt64] = []
        for name in names { references.append(try stringRef(name)) }
        return builder.add("NSMutableArray", superclasses: ["NSArray"], fields: ["NS.objects": .array(references.map(PropertyListValue.uid))])
    }

    /// The attributes Core Data marks `NSIsIndexed`: those a single-property, ascending binary
    /// index without a predicate covers (Core Data maps such an index to the property's flag).
    static func indexedAttributes(of entity: EntityDescription) -> Set<String> {
        var names: Set<String> = []
        for index in entity.indexes where index.kind == .binary && index.partialIndexPredicate == nil && index.elements.count == 1 {
            guard let element = index.elements.first, element.ascending,
                let attribute = entity.declaredProperties.first(where: { $0.name == element.property }) as? AttributeDescription,
                !attribute.isTransient
            else { continue }
            names.insert(element.property)
        }
        return names
    }

    /// `NSFetchIndexDescriptions` — first the index Core Data derives from each `NSIsIndexed`
    /// attribute (named after it), then the entity's own — and `NSCompoundIndexes`, the property
    /// names of each binary index over several properties.
    private mutating func encodeIndexes(
        of entity: EntityDescription, at reference: UInt64, indexed: Set<String>, into fields: inout [String: PropertyListValue]
    ) throws(PropertyListError) {
        let declaredNames = Set(entity.indexes.map(\.name))
        // In the order of the indexes they come from, as Core Data lists them.
        var derived: [FetchIndexDescription] = []
        for index in entity.indexes {
            guard let property = index.elements.first?.property, index.elements.count == 1, indexed.contains(property),
                !declaredNames.contains(property), !derived.contains(where: { $0.name == property })
            else { continue }
            derived.append(FetchIndexDescription(name: property, elements: [.init(property)]))
        }
        var indexes: [UInt64] = []
        for index in derived + entity.indexes {
            var partial: PropertyListValue = .uid(0)
            if let text = index.partialIndexPredicate {
                do {
                    partial = .uid(try encodePredicate(try StorePredicate(format: text)))
                } catch let error as PropertyListError {
                    throw error
                } catch {
                    leftOut.append("index \(entity.name).\(index.name): its predicate '\(text)' cannot be archived (\(error))")
                    continue
                }
            }
            let indexRef = builder.reserve()
            var elements: [UInt64] = []
            for element in index.elements {
                elements.append(builder.add("NSFetchIndexElementDescription", fields: [
                    "NSPropertyName": try string(element.property), "NSFetchIndexElementType": .integer(index.kind == .rTree ? 1 : 0),
                    "NSFetchIndexDescription": .uid(indexRef), "NSAscending": .boolean(element.ascending),
                ]))
            }
            builder.set(indexRef, "NSFetchIndexDescription", fields: [
                "NSIndexName": try string(index.name), "NSPartialIndexPredicate": partial, "NSIndexElements": array(elements),
                "NSEntity": .uid(reference),
            ])
            indexes.append(indexRef)
        }
        fields["NSFetchIndexDescriptions"] = array(indexes, mutable: true)
        var compounds: [UInt64] = []
        for index in entity.indexes where index.kind == .binary && index.partialIndexPredicate == nil && index.elements.count > 1 {
            compounds.append(try nameList(index.elements.map(\.property)))
        }
        fields["NSCompoundIndexes"] = array(compounds, mutable: true)
    }
}
