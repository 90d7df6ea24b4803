import Foundation

/// Reads and writes `NSKeyedArchiver` archives of Foundation's value classes — what Core Data's
/// default transformers (`NSSecureUnarchiveFromData`, `NSKeyedUnarchiveFromData`) store in
/// transformable attributes — without Foundation's unarchiver, which is not safe on bytes
/// from elsewhere.
///
/// Only an allow-list of classes is read, into Swift values: strings (`NSString`), numbers
/// (`NSNumber` → `Int`, `Double` or `Bool`; `NSDecimalNumber` → `Decimal`), `Data`, `Date`,
/// `URL`, `UUID`, `NSNull`, arrays (`NSArray`, `NSOrderedSet` → `[Any]`), dictionaries
/// (`NSDictionary` → `[String: Any]`, or `[AnyHashable: Any]` when a key is not a string) and
/// sets (`NSSet` → `Set<AnyHashable>`), nested to ``maxDepth``. Any other class, a reference
/// out of range, an object that contains itself or anything malformed is a
/// ``PropertyListError``; nothing is ever instantiated by name.
///
/// For example:
///
/// ```swift
/// let data = try KeyedArchive.archive(["tags": ["swift", "linux"], "count": 2])
/// let value = try KeyedArchive.unarchive(data) as? [String: Any]   // ["tags": ["swift", "linux"], "count": 2]
/// ```
public enum KeyedArchive {
    /// The deepest nesting of containers read or written.
    public static let maxDepth = 64

    /// The value an archive holds under its root key.
    ///
    /// - Throws: ``PropertyListError`` (`.notKeyedArchive`, `.classNotAllowed`, `.corrupt`,
    ///   `.cyclicReference`, `.nestingTooDeep`, or the property list's own errors).
    public static func unarchive(_ data: Data) throws(PropertyListError) -> Any {
        let top = try BinaryPropertyListReader().read(data)
        guard case .dictionary(let archive) = top, archive["$archiver"]?.stringValue == "NSKeyedArchiver",
            case .array(let objects)? = archive["$objects"],
            case .dictionary(let roots)? = archive["$top"]
        else {
            throw PropertyListError(.notKeyedArchive, "the property list is not an NSKeyedArchiver archive ($archiver, $objects and $top)")
        }
        guard let root = roots["root"] ?? roots.sorted(by: { $0.key < $1.key }).first?.value, case .uid(let reference) = root else {
            throw PropertyListError(.notKeyedArchive, "the archive's $top has no root object")
        }
        var reader = ArchiveReader(objects: objects)
        return try reader.value(at: reference, depth: 0) ?? reader.null
    }

    /// Walks `$objects`, decoding each reference once and refusing cycles (also used by
    /// ``KeyedArchiveGraph`` for the value objects inside other archives).
    struct ArchiveReader {
        let objects: [PropertyListValue]
        /// The one `NSNull` of the value: Foundation's `NSNull`s are equal but hash apart, so two
        /// of them in a set would break it.
        let null = NSNull()
        var decoded: [UInt64: Any?] = [:]
        var inProgress: Set<UInt64> = []

        /// The value object `reference` stands for; `nil` for `$null`.
        mutating func value(at reference: UInt64, depth: Int) throws(PropertyListError) -> Any? {
            guard reference < objects.count else {
                throw PropertyListError(.corrupt, "object reference \(reference) out of range (\(objects.count) objects)")
            }
            if let known = decoded[reference] { return known }
            guard depth <= KeyedArchive.maxDepth else {
                throw PropertyListError(.nestingTooDeep, "the archive nests deeper than \(KeyedArchive.maxDepth) levels")
            }
            guard inProgress.insert(reference).inserted else {
                throw PropertyListError(.cyclicReference, "object \(reference) contains itself")
            }
            defer { inProgress.remove(reference) }
            let value = try decode(objects[Int(reference)], depth: depth)
            decoded[reference] = .some(value)
            return value
        }

        private mutating func decode(_ object: PropertyListValue, depth: Int) throws(PropertyListError) -> Any? {
            switch object {
            case .string(let string): return string == "$null" ? nil : string
            case .integer(let integer): return Int(exactly: integer) ?? integer
            case .real(let real): return real
            case .boolean(let boolean): return boolean
            case .data(let data): return data
            case .date(let date): return try Self.finite(date.timeIntervalSinceReferenceDate)
            case .uid, .array: throw PropertyListError(.corrupt, "an archived object is a bare \(object.kindName)")
            case .dictionary(let fields): return try instance(fields, depth: depth)
            }
        }

        private mutating func instance(_ fields: [String: PropertyListValue], depth: Int) throws(PropertyListError) -> Any? {
            let name = try className(of: fields)
            switch name {
            case "NSString", "NSMutableString":
                guard let string = fields["NS.string"]?.stringValue else { throw missing("NS.string", of: name) }
                return string
            case "NSData", "NSMutableData":
                guard let data = fields["NS.data"]?.dataValue ?? fields["NS.bytes"]?.dataValue else { throw missing("NS.data", of: name) }
                return data
            case "NSDate":
                guard let seconds = fields["NS.time"]?.realValue ?? fields["NS.time"]?.integerValue.map(Double.init) else {
                    throw missing("NS.time", of: name)
                }
                return try Self.finite(seconds)
            case "NSUUID":
                guard let bytes = fields["NS.uuidbytes"]?.dataValue, bytes.count == 16 else { throw missing("NS.uuidbytes (16 bytes)", of: name) }
                return bytes.withUnsafeBytes { raw in UUID(uuid: raw.loadUnaligned(as: uuid_t.self)) }
            case "NSURL":
                guard let relativeReference = try reference(fields["NS.relative"]),
                    let relative = try value(at: relativeReference, depth: depth + 1) as? String
                else { throw missing("NS.relative", of: name) }
                var base: URL?
                if let baseReference = try reference(fields["NS.base"]) { base = try value(at: baseReference, depth: depth + 1) as? URL }
                guard let url = URL(string: relative, relativeTo: base) else {
                    throw PropertyListError(.corrupt, "NSURL '\(relative)' is not a URL")
                }
                return url
            case "NSNull":
                return null
            case "NSDecimalNumber", "NSDecimal":
                return try decimal(fields)
            case "NSArray", "NSMutableArray", "NSOrderedSet", "NSMutableOrderedSet":
                return try elements(fields["NS.objects"], of: name, depth: depth)
            case "NSSet", "NSMutableSet":
                var set = Set<AnyHashable>()
                for element in try elements(fields["NS.objects"], of: name, depth: depth) {
                    guard let hashable = element as? AnyHashable else {
                        throw PropertyListError(.corrupt, "\(name) holds a \(type(of: element)), which cannot be in a set")
                    }
                    set.insert(hashable)
                }
                return set
            case "NSDictionary", "NSMutableDictionary":
                let keys = try elements(fields["NS.keys"], of: name, depth: depth)
                let values = try elements(fields["NS.objects"], of: name, depth: depth)
                guard keys.count == values.count else {
                    throw PropertyListError(.corrupt, "\(name) has \(keys.count) keys for \(values.count) values")
                }
                if let strings = keys as? [String] {
                    return Dictionary(zip(strings, values), uniquingKeysWith: { _, last in last })
                }
                var dictionary: [AnyHashable: Any] = [:]
                for (key, value) in zip(keys, values) {
                    guard let hashable = key as? AnyHashable else {
                        throw PropertyListError(.corrupt, "\(name) has a key of type \(type(of: key)), which cannot be a key")
                    }
                    dictionary[hashable] = value
                }
                return dictionary
            default:
                throw PropertyListError(.classNotAllowed, "the archive holds an object of class \(name), which is not one of Foundation's value classes Stowage reads")
            }
        }

        private func className(of fields: [String: PropertyListValue]) throws(PropertyListError) -> String {
            guard case .uid(let reference)? = fields["$class"], reference < objects.count,
                case .dictionary(let description) = objects[Int(reference)],
                let name = description["$classname"]?.stringValue
            else {
                throw PropertyListError(.corrupt, "an archived object has no valid $class")
            }
            return name
        }

        private func reference(_ field: PropertyListValue?) throws(PropertyListError) -> UInt64? {
            guard let field else { return nil }
            guard case .uid(let reference) = field else { throw PropertyListError(.corrupt, "a reference is a \(field.kindName), not a UID") }
            return reference
        }

        /// The members of an `NS.objects`/`NS.keys` list; `$null` members become `NSNull`.
        private mutating func elements(_ field: PropertyListValue?, of name: String, depth: Int) throws(PropertyListError) -> [Any] {
            guard case .array(let references)? = field else { throw missing("NS.objects", of: name) }
            var result: [Any] = []
            result.reserveCapacity(references.count)
            for element in references {
                guard case .uid(let reference) = element else {
                    throw PropertyListError(.corrupt, "\(name) holds a \(element.kindName), not a reference")
                }
                result.append(try value(at: reference, depth: depth + 1) ?? null)
            }
            return result
        }

        /// `NSDecimalNumber`: a 128-bit mantissa (eight little-endian 16-bit words), an exponent
        /// and a sign.
        private func decimal(_ fields: [String: PropertyListValue]) throws(PropertyListError) -> Decimal {
            guard let mantissa = fields["NS.mantissa"]?.dataValue, let exponent = fields["NS.exponent"]?.integerValue,
                let isNegative = fields["NS.negative"]?.booleanValue, mantissa.count <= 16, (-128...127).contains(exponent)
            else {
                throw missing("NS.mantissa, NS.exponent and NS.negative", of: "NSDecimalNumber")
            }
            var significand = Decimal(0)
            for byte in mantissa.reversed() { significand = significand * 256 + Decimal(Int(byte)) }
            return Decimal(sign: isNegative ? .minus : .plus, exponent: Int(exponent), significand: significand)
        }

        /// A date at `seconds` after the reference date; NaN and infinities are refused (Foundation
        /// traps on printing such a date).
        private static func finite(_ seconds: Double) throws(PropertyListError) -> Date {
            guard seconds.isFinite else { throw PropertyListError(.corrupt, "a date of \(seconds) seconds is not a date") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }

        private func missing(_ field: String, of name: String) -> PropertyListError {
            PropertyListError(.corrupt, "\(name) has no valid \(field)")
        }
    }
}

extension PropertyListValue {
    /// The kind of value, for error messages.
    var kindName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "UID"
        }
    }
}
