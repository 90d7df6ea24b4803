import Foundation
import StoreCore

extension ModelContentsReader {
    private static let relationshipAttributes: Set<String> = [
        "name", "optional", "toMany", "ordered", "minCount", "maxCount", "deletionRule", "destinationEntity",
        "inverseName", "inverseEntity", "transient", "syncable", "indexed", "elementID", "renamingIdentifier",
        "versionHashModifier", "spotlightIndexingEnabled", "storedInTruthFile", "allowsCloudEncryption",
    ]

    /// `<relationship>`: destination, inverse (which may be absent), cardinality, order, delete rule.
    mutating func readRelationship(_ element: ModelXMLElement) throws(ModelFileError) -> RelationshipDescription {
        checkAttributes(of: element, known: Self.relationshipAttributes)
        let name = try required("name", of: element)
        let destination = try required("destinationEntity", of: element)
        let deleteRule: DeleteRule
        switch element.attribute("deletionRule") ?? "Nullify" {
        case "Nullify": deleteRule = .nullify
        case "Cascade": deleteRule = .cascade
        case "Deny": deleteRule = .deny
        case "No Action": deleteRule = .noAction
        case let other:
            warn(element, "relationship \(name): unknown deletionRule '\(other)', taken as Nullify")
            deleteRule = .nullify
        }
        var inverseName = element.attribute("inverseName")
        if inverseName?.isEmpty == true { inverseName = nil }
        if let inverseEntity = element.attribute("inverseEntity"), inverseEntity != destination {
            warn(element, "relationship \(name): inverseEntity \(inverseEntity) is not the destination \(destination); the destination is used")
        }
        let isOptional = flag("optional", of: element)
        let isToMany = flag("toMany", of: element)
        let minCount = integer("minCount", of: element)
        let maxCount = integer("maxCount", of: element)
        if !isToMany, let maxCount, maxCount != 1 {
            warn(element, "relationship \(name): a to-one relationship with maxCount \(maxCount); taken as 1")
        }
        return RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverseName, isToMany: isToMany,
            isOrdered: flag("ordered", of: element), deleteRule: deleteRule, isOptional: isOptional,
            // Counts as the file states them (they enter Core Data's version hash); a to-one's
            // maximum is 1 and its optionality decides validation.
            minCount: max(0, minCount ?? 0), maxCount: isToMany ? max(0, maxCount ?? 0) : 1,
            isTransient: flag("transient", of: element), userInfo: userInfo(in: element),
            renamingIdentifier: element.attribute("elementID") ?? element.attribute("renamingIdentifier"),
            versionHashModifier: element.attribute("versionHashModifier"))
    }
}
