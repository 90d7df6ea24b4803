/// Index subscripts (`objectFrom:withIndex:`): `collection[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`.
///
/// The rules, the same on every store:
/// - An ordered to-many relationship, an aggregate (`{a, b}`, an array argument) and any other
///   list keep their order: `FIRST` is the first element, `LAST` the last, `[n]` the element at
///   zero-based position `n`.
/// - An unordered to-many relationship has no order. Core Data answers `FIRST` and `LAST` with
///   an arbitrary member; Stowage gives the member with the lowest (`FIRST`) or highest (`LAST`)
///   key, as SQL can too. `[n]` needs an order: `FetchError.invalidArgument`. So do `FIRST` and
///   `LAST` of the values read through one (`reports.rating[FIRST]`): write `reports[FIRST].rating`.
/// - `SIZE` is the number of elements (of NULL: 0, as `@count`).
/// - An empty collection, an index out of range or a NULL index give NULL (Core Data raises
///   NSRangeException for an index out of range); an index that is not an integer, or a value
///   that is not a collection, is `FetchError.invalidArgument`.
extension PredicateEvaluator {
    /// How the elements of a collection being indexed are ordered.
    enum ElementOrder {
        /// By their position.
        case position
        /// Objects of an unordered to-many relationship: by their keys.
        case objectKey
        /// No order a subscript can use, with the reason.
        case undefined(String)
    }

    func indexedValue(_ arguments: [StoreExpression], with subject: EvaluatedValue) throws -> EvaluatedValue {
        guard arguments.count == 2 else {
            throw FetchError(.invalidArgument, "\(StoreExpression.indexFunctionName) takes 2 argument(s), got \(arguments.count)")
        }
        let (collection, order) = try orderedValue(of: arguments[0], with: subject)
        let items: [EvaluatedValue]
        switch collection {
        case .collection(let elements): items = elements
        case .value(.null): items = []
        default:
            throw FetchError(.invalidArgument, "\(arguments[0]) is not a collection, so it has no \(indexDescription(arguments[1]))")
        }
        if let keyword = arguments[1].symbolicIndex {
            switch (keyword, order) {
            case (.size, _): return .value(.integer(Int64(items.count)))
            case (_, .undefined(let reason)): throw FetchError(.invalidArgument, "\(arguments[0])[\(keyword.rawValue)]: \(reason)")
            case (.first, .position): return items.first ?? .null
            case (.last, .position): return items.last ?? .null
            case (.first, .objectKey): return Self.extreme(items, lowest: true)
            case (.last, .objectKey): return Self.extreme(items, lowest: false)
            }
        }
        let index = try value(of: arguments[1], with: subject).storeValue
        switch index {
        case .null: return .null
        case .integer(let position):
            switch order {
            case .position: return position >= 0 && position < items.count ? items[Int(position)] : .null
            case .objectKey:
                throw FetchError(.invalidArgument, "\(arguments[0]) is an unordered to-many relationship: [\(position)] needs an ordered one (FIRST, LAST and SIZE work on both)")
            case .undefined(let reason): throw FetchError(.invalidArgument, "\(arguments[0])[\(position)]: \(reason)")
            }
        default:
            throw FetchError(.invalidArgument, "the index of \(arguments[0]) must be an integer, FIRST, LAST or SIZE, not the \(index.kindName) \(index)")
        }
    }

    private func indexDescription(_ index: StoreExpression) -> String {
        index.symbolicIndex.map { "[\($0.rawValue)]" } ?? "[\(index)]"
    }

    /// The member with the lowest or highest object key (permanent keys before temporary ones).
    private static func extreme(_ items: [EvaluatedValue], lowest: Bool) -> EvaluatedValue {
        var best: (element: EvaluatedValue, key: (Int, Int64))?
        for item in items {
            guard case .objectID(let id) = item.storeValue else { continue }
            let key = (id.isTemporaryID ? 1 : 0, id.key)
            guard let current = best else {
                best = (item, key)
                continue
            }
            if lowest ? key < current.key : key > current.key { best = (item, key) }
        }
        return best?.element ?? .null
    }

    /// The value of a subscript's collection and how its elements are ordered.
    private func orderedValue(of expression: StoreExpression, with subject: EvaluatedValue) throws -> (EvaluatedValue, ElementOrder) {
        switch expression {
        case .keyPath(let path):
            return try orderedValue(ofPath: path, from: subject, order: nil)
        case .member(let base, let path):
            let (start, order) = try orderedValue(of: base, with: subject)
            return try orderedValue(ofPath: path, from: start, order: order)
        case .subquery(let collection, _, _):
            // A subquery keeps its collection's order (and its objects).
            let (_, order) = try orderedValue(of: collection, with: subject)
            return (try value(of: expression, with: subject), order)
        default:
            return (try value(of: expression, with: subject), .position)
        }
    }

    /// Follows a key path as ``value(of:with:)`` does, noting the order of the collection met.
    /// `order` is the order of `start` when it is a collection.
    private func orderedValue(ofPath path: String, from start: EvaluatedValue, order startOrder: ElementOrder?) throws -> (EvaluatedValue, ElementOrder) {
        var current = start
        var order = startOrder
        let components = path.split(separator: ".").map(String.init)
        for (offset, key) in components.enumerated() {
            if key == "self" || key == "SELF" { continue }
            if key.hasPrefix("@") {
                // Collection operators: keep a position order, nothing else.
                let rest = components[offset...].joined(separator: ".")
                let result = try self.value(of: .keyPath(rest), with: current)
                if case .position? = order { return (result, .position) }
                return (result, .undefined("the elements of a collection operator's result have no order"))
            }
            let toMany = Self.toManyRelationship(key, of: current)
            switch current {
            case .object(let object):
                current = try object.evaluationValue(forKey: key)
                if let toMany { order = toMany.isOrdered ? .position : .objectKey }
            case .collection:
                current = try value(of: .keyPath(key), with: current)
                switch order {
                case .position?, nil:
                    if let toMany, !toMany.isOrdered {
                        order = .undefined("the members of the unordered to-many relationship \(toMany.name) have no order")
                    } else {
                        order = .position
                    }
                case .objectKey?:
                    order = .undefined("values read through an unordered to-many relationship have no order; index the relationship itself, as in relationship[FIRST].key")
                case .undefined?:
                    break
                }
            case .value:
                current = .null
            }
        }
        return (current, order ?? .position)
    }

    /// The to-many relationship `key` of the object, or of the objects of the collection.
    private static func toManyRelationship(_ key: String, of value: EvaluatedValue) -> RelationshipDescription? {
        let entity: EntityDescription?
        switch value {
        case .object(let object): entity = object.evaluationEntity
        case .collection(let items):
            guard case .object(let object)? = items.first(where: { if case .object = $0 { true } else { false } }) else { return nil }
            entity = object.evaluationEntity
        case .value: return nil
        }
        guard let relationship = entity?.propertiesByName[key] as? RelationshipDescription, relationship.isToMany else { return nil }
        return relationship
    }
}
