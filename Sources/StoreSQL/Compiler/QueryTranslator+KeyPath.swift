import StoreCore

/// Key paths: attributes are columns; a to-one is the foreign key, and its destination's row is
/// LEFT JOINed (once per distinct foreign key and query level) when the path reads on, so a
/// NULL to-one gives NULL values as in memory; a to-many is a collection of rows in its own
/// correlated subquery, and key paths through a collection map over its elements, joining
/// further to-manys in (flattening, as the evaluator does).
///
/// For example, on `Quake`:
///
/// ```
/// region.name              t1.ZNAME           with  LEFT JOIN ZREGION t1 ON t1.Z_PK = t0.ZREGION
/// reports.quake.place      rows FROM ZREPORT t1 LEFT JOIN ZQUAKE t2 ON t2.Z_PK = t1.ZQUAKE
///                          WHERE t1.ZQUAKE = t0.Z_PK, element t2.ZPLACE
/// reports.@avg.rating      (SELECT AVG(t1.ZRATING) FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK)
/// ```
extension QueryTranslator {
    /// The value of a dotted key path read from `start`.
    package func follow(_ path: String, from start: QueryOperand) throws -> QueryOperand {
        try follow(path.split(separator: ".").map(String.init)[...], from: start, mapping: nil)
    }

    /// Follows key path components. `mapping` is the level of the collection whose element
    /// `start` is, while the rest of a collection operator's path is applied to each element:
    /// to-manys met then are joined into that collection — unless another collection operator
    /// follows, which must aggregate per element.
    package func follow(_ components: ArraySlice<String>, from start: QueryOperand, mapping: QueryLevel?) throws -> QueryOperand {
        var current = start
        var rest = components
        while var key = rest.first {
            rest = rest.dropFirst()
            if key == "self" || key == "SELF" { continue }
            if key.hasPrefix("@") { return try applyCollectionOperator(key, rest: rest, to: current) }
            // The components through a composite name one column (`location.latitude`).
            switch current {
            case .object(let object): key = object.entity.storedKey(key, continuingWith: &rest)
            case .collection(let collection): if case .object(let element) = collection.element { key = element.entity.storedKey(key, continuingWith: &rest) }
            default: break
            }
            switch current {
            case .object(let object):
                let flattensInto = rest.contains { $0.hasPrefix("@") } ? nil : mapping
                current = try step(object, key, flattenInto: flattensInto)
            case .collection(var collection):
                // (A key of a NULL is NULL: `nullWhenNull` carries over.)
                if collection.distinct { collection = try materialized(collection) }
                collection.order = Self.order(collection.order, afterReading: key, of: collection.element)
                collection.element = try stepElement(collection.element, key, in: collection.level)
                current = .collection(collection)
            case .list(let items):
                current = .list(try items.map { item in
                    if case .object(let object) = item { return try step(object, key, flattenInto: nil) }
                    return .scalar(.null)
                })
            case .scalar:
                // A key of a plain value is NULL in memory.
                current = .scalar(.null)
            }
        }
        return current
    }

    /// The order of a collection's rows once `key` is read from each element, with the
    /// evaluator's rules: a position order survives reading attributes and to-ones, a key order
    /// does not; reading an unordered to-many loses any order, an ordered one gives an order
    /// of two levels the compiler does not write.
    private static func order(_ order: RowOrder, afterReading key: String, of element: QueryOperand) -> RowOrder {
        guard case .none = order else {
            var toMany: RelationshipDescription?
            if case .object(let object) = element, let relationship = object.entity.propertiesByName[key] as? RelationshipDescription,
                relationship.isToMany
            {
                toMany = relationship
            }
            switch order {
            case .key:
                return .none(FetchError(.invalidArgument, "values read through an unordered to-many relationship have no order; index the relationship itself, as in relationship[FIRST].key"))
            case .position where toMany.map({ !$0.isOrdered }) == true:
                return .none(FetchError(.invalidArgument, "the members of the unordered to-many relationship \(key) have no order"))
            case .position where toMany != nil:
                return .none(FetchError(.unsupported, "an index subscript of a key path through two ordered to-many relationships does not compile to SQL"))
            default:
                return order
            }
        }
        return order
    }

    private func stepElement(_ element: QueryOperand, _ key: String, in level: QueryLevel) throws -> QueryOperand {
        guard case .object(let object) = element else { return .scalar(.null) }
        return try step(object, key, flattenInto: level)
    }

    /// One property of an object. A to-many becomes a new correlated collection, or — with
    /// `flattenInto` — is joined into that level, its members becoming the elements.
    package func step(_ object: ObjectReference, _ key: String, flattenInto level: QueryLevel?) throws -> QueryOperand {
        guard let property = object.entity.propertiesByName[key] else {
            if object.entity.compositeKeyPaths.contains(key) {
                throw FetchError(.invalidKeyPath, "'\(key)' is a composite attribute of \(object.entity.name); compare, sort or fetch its elements by key path (\(key).element)")
            }
            throw FetchError(.invalidKeyPath, "no property '\(key)' on entity \(object.entity.name)")
        }
        if property.isTransient { return .scalar(.null) }
        let table = try schema.table(for: object.entity.name)
        if let attribute = property as? AttributeDescription {
            guard let column = table.column(for: key) else { return .scalar(.null) }
            var sql = qualified(try alias(of: object), column.name)
            // Long decimals are stored as a BLOB of their digits (see SQLiteValueCoder); compare numbers.
            if attribute.attributeType == .decimal { sql = "CAST(\(sql) AS \(schema.dialect.realType))" }
            return .scalar(SQLScalar(sql: sql, kind: SQLKind(attribute.attributeType), attributeType: attribute.attributeType))
        }
        guard let relationship = property as? RelationshipDescription, let destination = relationship.destinationEntity else {
            return .scalar(.null)
        }
        if !relationship.isToMany {
            guard let column = table.column(for: key) else { return .scalar(.null) }
            let foreignKey = qualified(try alias(of: object), column.name)
            return .object(ObjectReference(key: foreignKey, alias: nil, entity: destination, level: object.level, nullable: true))
        }
        guard let storage = table.toMany[key] else {
            throw FetchError(.unsupported, "the to-many relationship \(object.entity.name).\(key) has no storage in the SQLite schema")
        }
        try requireBindable("the to-many relationship \(object.entity.name).\(key)")
        if let level { return try join(storage, of: object, destination: destination, into: level) }
        return .collection(try members(storage, of: object, destination: destination))
    }

    /// The members of a to-many as rows of a new subquery level.
    private func members(_ storage: ToManyStorage, of owner: ObjectReference, destination: EntityDescription) throws -> RowCollection {
        let element: ObjectReference
        let level: QueryLevel
        let order: RowOrder
        switch storage {
        case .foreignKey(_, let table, let column, let orderColumn):
            let alias = newAlias()
            level = QueryLevel("\(table) \(alias)", conditions: ["\(alias).\(column) = \(owner.key)"])
            element = ObjectReference(key: "\(alias).Z_PK", alias: alias, entity: destination, level: level, nullable: false)
            order = orderColumn.map { .position("\(alias).\($0), \(alias).Z_PK") } ?? .key("\(alias).Z_PK")
        case .joinTable(_, let table, let ownerColumn, let memberColumn, let orderColumn):
            // The member's key is in the join table; its row is joined only if a path reads it.
            let alias = newAlias("j")
            level = QueryLevel("\(table) \(alias)", conditions: ["\(alias).\(ownerColumn) = \(owner.key)"])
            element = ObjectReference(key: "\(alias).\(memberColumn)", alias: nil, entity: destination, level: level, nullable: false)
            order = orderColumn.map { .position("\(alias).\($0), \(alias).\(memberColumn)") } ?? .key("\(alias).\(memberColumn)")
        }
        return RowCollection(level: level, element: .object(element), nullWhenNull: owner.nullable ? owner.key : nil, order: order)
    }

    /// The members of a to-many joined into an existing level (a collection being mapped).
    ///
    /// When the owner can be NULL (a NULL to-one inside the collection), the evaluator keeps one
    /// NULL element for it but nothing for an owner with no members: a LEFT JOIN with
    /// `member IS NOT NULL OR owner IS NULL` keeps exactly those rows.
    private func join(_ storage: ToManyStorage, of owner: ObjectReference, destination: EntityDescription, into level: QueryLevel) throws -> QueryOperand {
        let join = owner.nullable ? "LEFT JOIN" : "JOIN"
        let memberKey: String
        var memberAlias: String?
        switch storage {
        case .foreignKey(_, let table, let column, _):
            let alias = newAlias()
            level.append("\(join) \(table) \(alias) ON \(alias).\(column) = \(owner.key)")
            memberKey = "\(alias).Z_PK"
            memberAlias = alias
        case .joinTable(_, let table, let ownerColumn, let memberColumn, _):
            let alias = newAlias("j")
            level.append("\(join) \(table) \(alias) ON \(alias).\(ownerColumn) = \(owner.key)")
            memberKey = "\(alias).\(memberColumn)"
        }
        if owner.nullable { level.restrict("(\(memberKey) IS NOT NULL OR \(owner.key) IS NULL)") }
        return .object(ObjectReference(key: memberKey, alias: memberAlias, entity: destination, level: level, nullable: owner.nullable))
    }
}
