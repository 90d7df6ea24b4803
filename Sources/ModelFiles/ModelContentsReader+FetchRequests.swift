import Foundation
import StoreCore

extension ModelContentsReader {
    private static let fetchRequestAttributes: Set<String> = [
        "name", "entity", "predicateString", "fetchLimit", "fetchBatchSize", "fetchOffset", "resultType",
        "includeSubentities", "includesSubentities", "includesPendingChanges", "includePropertyValues",
        "includesPropertyValues", "returnObjectsAsFaults", "returnsObjectsAsFaults", "returnDistinctResults",
        "returnsDistinctResults",
    ]

    /// `<fetchRequest name entity predicateString …/>`: a template whose predicate may use
    /// `$variables`. A predicate Stowage cannot parse leaves the template out, with a warning.
    mutating func readFetchRequest(_ element: ModelXMLElement) throws(ModelFileError) -> (String, StoreFetchRequest)? {
        checkAttributes(of: element, known: Self.fetchRequestAttributes)
        let name = try required("name", of: element)
        var request = StoreFetchRequest(entityName: try required("entity", of: element))
        if let format = element.attribute("predicateString"), !format.isEmpty {
            do {
                request.predicate = try StorePredicate(format: format)
            } catch {
                warn(element, "fetch request \(name): predicate '\(format)' cannot be parsed (\(error)); the request was left out")
                return nil
            }
        }
        request.fetchLimit = max(0, integer("fetchLimit", of: element) ?? 0)
        request.fetchBatchSize = max(0, integer("fetchBatchSize", of: element) ?? 0)
        request.fetchOffset = max(0, integer("fetchOffset", of: element) ?? 0)
        request.includesSubentities = flag("includeSubentities", of: element, default: flag("includesSubentities", of: element, default: true))
        request.includesPendingChanges = flag("includesPendingChanges", of: element, default: true)
        request.includesPropertyValues = flag("includePropertyValues", of: element, default: flag("includesPropertyValues", of: element, default: true))
        request.returnsObjectsAsFaults = flag("returnObjectsAsFaults", of: element, default: flag("returnsObjectsAsFaults", of: element, default: true))
        request.returnsDistinctResults = flag("returnDistinctResults", of: element, default: flag("returnsDistinctResults", of: element, default: false))
        if let resultType = element.attribute("resultType") {
            switch resultType {
            case "0": request.resultType = .managedObject
            case "1": request.resultType = .managedObjectID
            case "2": request.resultType = .dictionary
            case "4": request.resultType = .count
            default: warn(element, "fetch request \(name): unknown resultType '\(resultType)'; managed objects are returned")
            }
        }
        for child in element.children {
            warn(child, "unknown element <\(child.name)> in <fetchRequest> was ignored")
        }
        return (name, request)
    }

    /// `<fetchedProperty name><fetchRequest …/></fetchedProperty>`.
    mutating func readFetchedProperty(_ element: ModelXMLElement) throws(ModelFileError) -> FetchedPropertyDescription? {
        checkAttributes(of: element, known: ["name", "optional", "syncable", "transient", "elementID", "versionHashModifier"])
        let name = try required("name", of: element)
        var request: StoreFetchRequest?
        var userInfo: [String: String] = [:]
        for child in element.children {
            switch child.name {
            case "fetchRequest":
                guard let (_, read) = try readFetchRequest(child) else { return nil }
                request = read
            case "userInfo":
                userInfo = readUserInfo(child)
            default:
                warn(child, "unknown element <\(child.name)> in <fetchedProperty> was ignored")
            }
        }
        guard let request else {
            warn(element, "fetched property \(name) has no fetch request and was left out")
            return nil
        }
        return FetchedPropertyDescription(name: name, fetchRequest: request, userInfo: userInfo)
    }
}
