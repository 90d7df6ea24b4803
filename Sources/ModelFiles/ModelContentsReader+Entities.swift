import Foundation
import StoreCore

extension ModelContentsReader {
    private static let entityAttributes: Set<String> = [
        "name", "representedClassName", "className", "parentEntity", "isAbstract", "syncable", "codeGenerationType",
        "elementID", "renamingIdentifier", "versionHashModifier",
    ]

    /// `<entity>`: its properties, fetched properties, indexes, constraints and user info.
    mutating func readEntity(_ element: ModelXMLElement) throws(ModelFileError) -> EntityDescription {
        checkAttributes(of: element, known: Self.entityAttributes)
        let name = try required("name", of: element)
        var properties: [PropertyDescription] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        var indexes: [FetchIndexDescription] = []
        var constraints: [[String]] = []
        var userInfo: [String: String] = [:]
        var propertyNames: Set<String> = []
        for child in element.children {
            switch child.name {
            case "attribute":
                guard let attribute = try readAttribute(child) else { continue }
                if !propertyNames.insert(attribute.name).inserted { throw error(child, "\(name) declares '\(attribute.name)' twice") }
                properties.append(attribute)
                if flag("indexed", of: child), !attribute.isTransient {
                    indexes.append(FetchIndexDescription(name: attribute.name + "Index", elements: [.init(attribute.name)]))
                }
            case "relationship":
                let relationship = try readRelationship(child)
                if !propertyNames.insert(relationship.name).inserted { throw error(child, "\(name) declares '\(relationship.name)' twice") }
                properties.append(relationship)
            case "fetchedProperty":
                if let property = try readFetchedProperty(child) { fetchedProperties.append(property) }
            case "fetchIndex":
                if let index = try readFetchIndex(child) { indexes.append(index) }
            case "compoundIndexes":
                indexes += try readCompoundIndexes(child)
            case "uniquenessConstraints":
                constraints += try readUniquenessConstraints(child)
            case "userInfo":
                userInfo = readUserInfo(child)
            default:
                warn(child, "unknown element <\(child.name)> in <entity> was ignored")
            }
        }
        var representedClassName = element.attribute("representedClassName") ?? element.attribute("className")
        if representedClassName?.isEmpty == true { representedClassName = nil }
        return EntityDescription(
            name, parent: element.attribute("parentEntity"), isAbstract: flag("isAbstract", of: element),
            uniquenessConstraints: constraints, indexes: indexes, userInfo: userInfo,
            renamingIdentifier: element.attribute("elementID") ?? element.attribute("renamingIdentifier"),
            versionHashModifier: element.attribute("versionHashModifier"),
            representedClassName: representedClassName, fetchedProperties: fetchedProperties
        ) { EntityProperties(properties) }
    }

    /// `<fetchIndex name="…" [partialIndexPredicate="…"]><fetchIndexElement property="…" type="Binary|RTree" order="ascending|descending"/>…`.
    mutating func readFetchIndex(_ element: ModelXMLElement) throws(ModelFileError) -> FetchIndexDescription? {
        checkAttributes(of: element, known: ["name", "partialIndexPredicate"])
        let name = try required("name", of: element)
        var elements: [FetchIndexDescription.Element] = []
        var kinds: Set<String> = []
        for child in element.children {
            guard child.name == "fetchIndexElement" else {
                warn(child, "unknown element <\(child.name)> in <fetchIndex> was ignored")
                continue
            }
            checkAttributes(of: child, known: ["property", "type", "order", "expression", "expressionType"])
            guard let property = child.attribute("property") else {
                warn(child, "index \(name): an expression element (\(child.attribute("expression") ?? "?")) is not supported and was left out")
                continue
            }
            let type = child.attribute("type") ?? "Binary"
            if type != "Binary" && type != "RTree" {
                warn(child, "index \(name): unknown element type '\(type)', taken as Binary")
            }
            kinds.insert(type == "RTree" ? "RTree" : "Binary")
            let order = child.attribute("order") ?? "ascending"
            if order != "ascending" && order != "descending" {
                warn(child, "index \(name): unknown order '\(order)', taken as ascending")
            }
            elements.append(.init(property, ascending: order != "descending"))
        }
        guard !elements.isEmpty else {
            warn(element, "index \(name) has no property elements and was left out")
            return nil
        }
        if kinds.count > 1 { warn(element, "index \(name) mixes Binary and RTree elements; built as an R-tree") }
        var predicate = element.attribute("partialIndexPredicate")
        if predicate?.isEmpty == true { predicate = nil }
        return FetchIndexDescription(name: name, elements: elements, kind: kinds.contains("RTree") ? .rTree : .binary, partialIndexPredicate: predicate)
    }

    /// Xcode 7–8's `<compoundIndexes><compoundIndex><index value="…"/>…`, as binary fetch indexes.
    mutating func readCompoundIndexes(_ element: ModelXMLElement) throws(ModelFileError) -> [FetchIndexDescription] {
        var result: [FetchIndexDescription] = []
        for compound in element.children {
            guard compound.name == "compoundIndex" else {
                warn(compound, "unknown element <\(compound.name)> in <compoundIndexes> was ignored")
                continue
            }
            var properties: [String] = []
            for index in compound.children {
                guard index.name == "index" else {
                    warn(index, "unknown element <\(index.name)> in <compoundIndex> was ignored")
                    continue
                }
                properties.append(try required("value", of: index))
            }
            if !properties.isEmpty {
                result.append(FetchIndexDescription(name: "compoundIndex" + properties.joined(separator: "_"), elements: properties.map { .init($0) }))
            }
        }
        return result
    }

    /// `<uniquenessConstraints><uniquenessConstraint><constraint value="…"/>…`.
    mutating func readUniquenessConstraints(_ element: ModelXMLElement) throws(ModelFileError) -> [[String]] {
        var result: [[String]] = []
        for constraint in element.children {
            guard constraint.name == "uniquenessConstraint" else {
                warn(constraint, "unknown element <\(constraint.name)> in <uniquenessConstraints> was ignored")
                continue
            }
            var keys: [String] = []
            for key in constraint.children {
                guard key.name == "constraint" else {
                    warn(key, "unknown element <\(key.name)> in <uniquenessConstraint> was ignored")
                    continue
                }
                checkAttributes(of: key, known: ["value"])
                keys.append(try required("value", of: key))
            }
            if !keys.isEmpty { result.append(keys) }
        }
        return result
    }
}
