extension StoreValue {
    /// The value of a `String`, `Int`, `Double` or `Bool` held in an `Any` — what a
    /// `setValue(_:forKey:)` call mostly passes — found by comparing its type, not by the
    /// runtime's cast to `any StoreValueConvertible` (a protocol-conformance lookup, and for a
    /// `String` a bridging attempt). `nil` for any other type, and for a subclass or bridged
    /// Foundation object (`NSString`, `NSNumber`): those take the general path.
    ///
    /// ```swift
    /// let value: Any = "c1"
    /// StoreValue(plainSwiftValue: value)   // .string("c1")
    /// ```
    init?(plainSwiftValue value: Any) {
        let type = Swift.type(of: value)
        if type == String.self, let text = value as? String {
            self = .string(text)
        } else if type == Int.self, let number = value as? Int {
            self = .integer(Int64(number))
        } else if type == Double.self, let number = value as? Double {
            self = .double(number)
        } else if type == Bool.self, let flag = value as? Bool {
            self = .boolean(flag)
        } else {
            return nil
        }
    }
}
