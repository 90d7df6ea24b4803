import Foundation

extension KeyedArchive {
    /// An `NSKeyedArchiver` archive (binary property list) of `value`, readable by Foundation's
    /// unarchivers on Apple platforms and by ``unarchive(_:)``. Takes the values
    /// ``unarchive(_:)`` returns: strings, integers, floating-point numbers, booleans,
    /// `Decimal`, `Data`, `Date`, `URL`, `UUID`, `NSNull`, arrays, dictionaries with hashable
    /// keys and sets of those.
    ///
    /// - Throws: ``PropertyListError`` with `.classNotAllowed` for a value of another type,
    ///   `.corrupt` for a date that is NaN or infinite, or `.nestingTooDeep` beyond ``maxDepth``.
    public static func archive(_ value: Any) throws(PropertyListError) -> Data {
        var writer = ArchiveWriter()
        let root = try writer.add(value, depth: 0)
        let archive = PropertyListValue.dictionary([
            "$version": .integer(100_000),
            "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(["root": .uid(root)]),
            "$objects": .array(writer.objects),
        ])
        return BinaryPropertyListWriter().write(archive)
    }

    /// Builds `$objects`: `$null` first, each class description once (also used by
    /// ``KeyedArchiveGraph/Builder`` for archives of other classes).
    struct ArchiveWriter {
        var objects: [PropertyListValue] = [.string("$null")]
        var classes: [String: UInt64] = [:]

        mutating func add(_ value: Any, depth: Int) throws(PropertyListError) -> UInt64 {
            guard depth <= KeyedArchive.maxDepth else {
                throw PropertyListError(.nestingTooDeep, "the value nests deeper than \(KeyedArchive.maxDepth) levels")
            }
            switch value {
            case let optional as Optional<Any> where optional == nil: return 0
            case is NSNull: return append(instance("NSNull", [:]))
            case let string as String: return append(.string(string))
            case let string as Substring: return append(.string(String(string)))
            case let boolean as Bool: return append(.boolean(boolean))
            case let decimal as Decimal: return append(instance("NSDecimalNumber", Self.decimalFields(decimal), superclasses: ["NSNumber", "NSValue"]))
            case let integer as any BinaryInteger:
                guard let exact = Int64(exactly: integer) else {
                    throw PropertyListError(.classNotAllowed, "the integer \(integer) does not fit in 64 bits")
                }
                return append(.integer(exact))
            case let real as any BinaryFloatingPoint: return append(.real(Double(real)))
            case let data as Data: return append(.data(data))
            case let date as Date:
                // Refused here rather than written and then refused when read back.
                guard date.timeIntervalSinceReferenceDate.isFinite else {
                    throw PropertyListError(.corrupt, "a date of \(date.timeIntervalSinceReferenceDate) seconds is not a date")
                }
                return append(instance("NSDate", ["NS.time": .real(date.timeIntervalSinceReferenceDate)]))
            case let uuid as UUID:
                let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
                return append(instance("NSUUID", ["NS.uuidbytes": .data(bytes)]))
            case let url as URL:
                let relative = append(.string(url.absoluteString))
                return append(instance("NSURL", ["NS.base": .uid(0), "NS.relative": .uid(relative)]))
            case let set as Set<AnyHashable>:
                // In a stable order, so that the same set always archives to the same bytes.
                let members = try set.sorted(by: Self.stableOrder).map { (member: AnyHashable) throws(PropertyListError) in
                    try add(member.base, depth: depth + 1)
                }
                return append(instance("NSSet", ["NS.objects": .array(members.map(PropertyListValue.uid))]))
            case let dictionary as [String: Any]:
                return try addDictionary(dictionary.sorted { $0.key < $1.key }.map { ($0.key as Any, $0.value) }, depth: depth)
            case let dictionary as [AnyHashable: Any]:
                return try addDictionary(dictionary.sorted { Self.stableOrder($0.key, $1.key) }.map { ($0.key.base, $0.value) }, depth: depth)
            case let array as [Any]:
                let members = try array.map { (member: Any) throws(PropertyListError) in try add(member, depth: depth + 1) }
                return append(instance("NSArray", ["NS.objects": .array(members.map(PropertyListValue.uid))]))
            default:
                throw PropertyListError(.classNotAllowed, "a value of type \(type(of: value)) cannot be archived (only Foundation's value types)")
            }
        }

        private static func stableOrder(_ lhs: AnyHashable, _ rhs: AnyHashable) -> Bool {
            sortKey(lhs.base) < sortKey(rhs.base)
        }

        /// A deterministic key for the values an archive holds (never a value's `description`:
        /// Foundation traps printing some dates).
        private static func sortKey(_ value: Any) -> String {
            switch value {
            case let string as String: "s" + string
            case let boolean as Bool: boolean ? "b1" : "b0"
            case let integer as any BinaryInteger: "i" + String(integer)
            case let real as Double: "d" + String(real.bitPattern)
            case let date as Date: "t" + String(date.timeIntervalSinceReferenceDate.bitPattern)
            case let data as Data: "x" + data.base64EncodedString()
            case let uuid as UUID: "u" + uuid.uuidString
            case let url as URL: "l" + url.absoluteString
            case let decimal as Decimal: "m" + NSDecimalNumber(decimal: decimal).stringValue
            case is NSNull: "n"
            default: "~" + String(describing: type(of: value))
            }
        }

        private mutating func addDictionary(_ entries: [(key: Any, value: Any)], depth: Int) throws(PropertyListError) -> UInt64 {
            var keys: [PropertyListValue] = []
            var values: [PropertyListValue] = []
            for (key, value) in entries {
                keys.append(.uid(try add(key, depth: depth + 1)))
                values.append(.uid(try add(value, depth: depth + 1)))
            }
            return append(instance("NSDictionary", ["NS.keys": .array(keys), "NS.objects": .array(values)]))
        }

        mutating func append(_ object: PropertyListValue) -> UInt64 {
            objects.append(object)
            return UInt64(objects.count - 1)
        }

        /// An object of class `name`: its fields and a reference to its class description.
        mutating func instance(_ name: String, _ fields: [String: PropertyListValue], superclasses: [String] = []) -> PropertyListValue {
            let reference: UInt64
            if let known = classes[name] {
                reference = known
            } else {
                let hierarchy = [name] + superclasses + ["NSObject"]
                reference = append(.dictionary(["$classname": .string(name), "$classes": .array(hierarchy.map(PropertyListValue.string))]))
                classes[name] = reference
            }
            var fields = fields
            fields["$class"] = .uid(reference)
            return .dictionary(fields)
        }

        /// `NSDecimalNumber`'s fields: the significand as eight little-endian 16-bit words.
        private static func decimalFields(_ decimal: Decimal) -> [String: PropertyListValue] {
            var significand = decimal.significand.magnitude
            var bytes = Data()
            while significand > 0, bytes.count < 16 {
                let quotient = (significand / 256).rounded(.down)
                let byte = significand - quotient * 256
                bytes.append(UInt8(NSDecimalNumber(decimal: byte).intValue))
                significand = quotient
            }
            let length = (bytes.count + 1) / 2
            while bytes.count < 16 { bytes.append(0) }
            return [
                "NS.mantissa": .data(bytes), "NS.exponent": .integer(Int64(decimal.exponent)),
                "NS.negative": .boolean(decimal.sign == .minus && !decimal.isZero), "NS.length": .integer(Int64(length)),
                "NS.compact": .boolean(true), "NS.mantissa.bo": .integer(1),
            ]
        }
    }
}

extension Decimal {
    /// Rounds to an integer in the given direction.
    fileprivate func rounded(_ rule: NSDecimalNumber.RoundingMode) -> Decimal {
        var source = self
        var result = Decimal()
        NSDecimalRound(&result, &source, 0, rule)
        return result
    }
}
