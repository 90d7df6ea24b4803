/// Checks a fetch request's key paths against the model before anything is evaluated, as a SQL
/// store does when it compiles the request: a key the entity does not have is a
/// ``FetchError`` (`.invalidKeyPath`), and a predicate string literal that does not parse an
/// `.invalidPredicate`, whether or not the store holds any object to evaluate.
///
/// A path is followed from the fetched entity (or, for a key only its sub-entities declare, from
/// the sub-entity) through relationships to their destinations;
/// a collection operator (`@count`), a transient property or a key of an attribute's value ends
/// what can be checked (those read as the evaluator reads them). Paths inside a `SUBQUERY`'s
/// predicate and after a variable name other objects and are left to evaluation.
///
/// For example:
///
/// ```swift
/// try FetchRequestCheck.check(request, entity: quake)   // "magnitude > 5": fine; "magnitdue > 5": throws
/// ```
enum FetchRequestCheck {
    static func check(_ request: StoreFetchRequest, entity: EntityDescription) throws(FetchError) {
        if let failure = request.translationFailure { throw FetchError(.untranslatablePredicate, failure) }
        if let predicate = request.predicate {
            try predicate.checkTreeDepth()
            try check(predicate, entity: entity)
        }
        for sort in request.sortDescriptors { try check(path: sort.keyPath, from: entity) }
    }

    static func check(_ predicate: StorePredicate, entity: EntityDescription) throws(FetchError) {
        switch predicate {
        case .constant: return
        case .and(let parts), .or(let parts):
            for part in parts { try check(part, entity: entity) }
        case .not(let inner):
            try check(inner, entity: entity)
        case .comparison(let comparison):
            try check(comparison.left, entity: entity)
            try check(comparison.right, entity: entity)
        }
    }

    private static func check(_ expression: StoreExpression, entity: EntityDescription) throws(FetchError) {
        switch expression {
        case .keyPath(let path): try check(path: path, from: entity)
        case .member(let base, _): try check(base, entity: entity)
        case .function(StorePredicate.syntaxErrorFunction, let items):
            // A string literal that did not parse fails here, not only when evaluated on a row.
            throw StorePredicate.literalSyntaxFailure(items)
        case .aggregate(let items), .function(_, let items):
            for item in items { try check(item, entity: entity) }
        case .subquery(let collection, _, _): try check(collection, entity: entity)
        case .conditional(let condition, let whenTrue, let whenFalse):
            try check(condition, entity: entity)
            try check(whenTrue, entity: entity)
            try check(whenFalse, entity: entity)
        case .constant, .evaluatedObject, .variable: return
        }
    }

    private static func check(path: String, from entity: EntityDescription) throws(FetchError) {
        var current = entity
        var rest = path.split(separator: ".").map(String.init)[...]
        while let first = rest.popFirst() {
            if first == "self" || first == "SELF" { continue }
            let key = current.storedKey(first, continuingWith: &rest)
            if current.compositeKeyPaths.contains(key) {
                throw FetchError(.invalidKeyPath, "'\(key)' is a composite attribute of \(current.name); compare, sort or fetch its elements by key path (\(key).element)")
            }
            if key.hasPrefix("@") { return }
            // In memory each object reads its own entity's property, so a key only sub-entities
            // declare is accepted on their parent (SQL stores, compiling for the parent, refuse it).
            guard let property = current.propertiesByName[key] ?? declaredBelow(current, key) else {
                throw FetchError(.invalidKeyPath, "no property '\(key)' on entity \(current.name)")
            }
            guard !property.isTransient, let relationship = property as? RelationshipDescription,
                let destination = relationship.destinationEntity
            else { return }
            current = destination
        }
    }

    private static func declaredBelow(_ entity: EntityDescription, _ key: String) -> PropertyDescription? {
        for sub in entity.subentities {
            if let property = sub.propertiesByName[key] ?? declaredBelow(sub, key) { return property }
        }
        return nil
    }
}
