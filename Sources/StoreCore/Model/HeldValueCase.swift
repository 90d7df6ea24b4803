/// The ``StoreValue`` case an attribute type accepts without converting anything (an Integer 64
/// attribute's `.integer`, a String attribute's `.string`): checked from the value's case alone,
/// without copying the value or the type into a pair to match (a save checks every attribute of
/// every changed object). Other values go through ``AttributeType/accepts(_:)``.
enum HeldValueCase {
    case integer, double, float, decimal, string, boolean, date, data, uuid, uri
    /// No case is taken as it is: every value goes through ``AttributeType/accepts(_:)``.
    case none

    init(_ type: AttributeType) {
        switch type {
        case .integer64: self = .integer
        case .double: self = .double
        case .float: self = .float
        case .decimal: self = .decimal
        case .string: self = .string
        case .boolean: self = .boolean
        case .date: self = .date
        case .binaryData: self = .data
        case .uuid: self = .uuid
        case .uri: self = .uri
        case .integer16, .integer32, .transformable, .objectID, .undefined, .composite: self = .none
        }
    }

    /// Whether `value` has this case (then the type accepts it as it is).
    func holds(_ value: StoreValue) -> Bool {
        switch value {
        case .integer: self == .integer
        case .double: self == .double
        case .float: self == .float
        case .decimal: self == .decimal
        case .string: self == .string
        case .boolean: self == .boolean
        case .date: self == .date
        case .data: self == .data
        case .uuid: self == .uuid
        case .uri: self == .uri
        case .null, .objectID: false
        }
    }
}
