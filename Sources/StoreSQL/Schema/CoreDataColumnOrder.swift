import StoreCore

/// A column of an entity table with the place Core Data gives it. Core Data declares a table's
/// columns by kind — integer and Boolean attributes, then to-one keys (their `Z_FOK_` order
/// columns after all of them), the keys of to-many relationships without an inverse, dates,
/// other numbers, strings, UUIDs, and data last — and within a kind by property name, as the
/// tables of the Apple-written fixture stores show (`ZLOGGERNETWORKREQUESTENTITY`: `ZERRORCODE`,
/// `ZISCOMPLETED`, `ZSTATUSCODE`, `ZDETAILS`, `ZMESSAGE`, `ZCREATEDAT`, `ZDURATION`, then its
/// strings; `ZBOOKMARKENTITY`: `ZFAVORITEFOLDER`, `ZPARENT`, `Z_FOK_FAVORITEFOLDER`,
/// `Z_FOK_PARENT`). Only the `CREATE TABLE` statement follows this order; every statement names
/// its columns.
///
/// For example:
///
/// ```swift
/// var columns = [CoreDataColumnOrder(name: "ZTITLE", attribute: title), CoreDataColumnOrder(name: "ZCOUNT", attribute: count)]
/// columns.sort()   // ZCOUNT (an integer), then ZTITLE (a string)
/// ```
struct CoreDataColumnOrder: Comparable {
    /// The kinds, in Core Data's order.
    enum Kind: Int {
        case integer, key, hiddenKey, date, number, string, uuid, data
    }

    let name: String
    let type: String
    let kind: Kind
    /// The property name it is sorted by (a hidden key: its column name).
    let key: String
    /// A `Z_FOK_` column, placed after the keys of its kind.
    let isOrder: Bool

    init(name: String, key: String, kind: Kind, isOrder: Bool = false) {
        self.name = name
        self.type = "INTEGER"
        self.key = key
        self.kind = kind
        self.isOrder = isOrder
    }

    init(name: String, attribute: AttributeDescription) {
        self.name = name
        self.type = Column(property: attribute.name, propertyIndex: -1, name: name, kind: .attribute(attribute.attributeType, externalStorage: false)).declaredType
        self.key = attribute.name
        self.isOrder = false
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64, .boolean: kind = .integer
        case .date: kind = .date
        case .decimal, .double, .float: kind = .number
        case .string, .uri: kind = .string
        case .uuid: kind = .uuid
        case .binaryData, .transformable, .objectID, .undefined, .composite: kind = .data
        }
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.kind.rawValue, lhs.isOrder ? 1 : 0, lhs.key, lhs.name) < (rhs.kind.rawValue, rhs.isOrder ? 1 : 0, rhs.key, rhs.name)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.kind == rhs.kind && lhs.key == rhs.key && lhs.isOrder == rhs.isOrder
    }
}
