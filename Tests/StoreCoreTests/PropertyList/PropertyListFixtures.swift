import Foundation
import StoreCore

/// Shared inputs for the property list tests.
enum PropertyListFixtures {
    /// A value with every type, nested, with repeats and non-ASCII text (no UIDs: Foundation
    /// on Linux cannot write them).
    static let sample: PropertyListValue = [
        "NSStoreType": "SQLite",
        "NSPersistenceFrameworkVersion": 637,
        "NSStoreModelVersionHashes": ["Author": .data(Data(repeating: 0xAB, count: 32)), "Book": .data(Data(0..<32))],
        "NSStoreModelVersionIdentifiers": [""],
        "numbers": [0, 1, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, .integer(.max), .integer(.min), -1],
        "reals": [0.5, -2.25, 1e300, .real(.infinity)],
        "flags": [true, false, true],
        "created": .date(Date(timeIntervalSinceReferenceDate: 726_000_000.125)),
        "text": ["caf\u{E9}", "\u{1F600} and \u{1D11E}", "\u{6F22}\u{5B57}", "ascii", "ascii"],
        "empty": ["array": [], "dictionary": [:], "string": "", "data": .data(Data())],
        "long": .string(String(repeating: "x", count: 40)),
    ]

    /// `SELECT Z_PLIST FROM Z_METADATA` of TestModel.sqlite in bignerdranch/CoreDataStack (MIT),
    /// written by Core Data (NSPersistenceFrameworkVersion 637); 354 bytes.
    static let coreDataMetadata = Data(base64Encoded: """
        YnBsaXN0MDDWAQIDBAUGBwkKCxARXxAeTlNTdG9yZU1vZGVsVmVyc2lvbklkZW50aWZpZXJzW05TU3RvcmVUeXBlXxASX05TQXV0b1ZhY3V1bUxl\
        dmVsXxAZTlNTdG9yZU1vZGVsVmVyc2lvbkhhc2hlc18QHU5TUGVyc2lzdGVuY2VGcmFtZXdvcmtWZXJzaW9uXxAgTlNTdG9yZU1vZGVsVmVyc2lv\
        bkhhc2hlc1ZlcnNpb26hCFBWU1FMaXRlUTLSDA0OD1RCb29rVkF1dGhvck8QICkskj5IwsvupaETu3aF+8Y6uADAu8JCrReg8uKh4I9cTxAgy8H1\
        wnTr9BRHTE41D3OxSx3TVsIngq50iIENWXGIxG0RAn0QAwAIABUANgBCAFcAcwCTALYAuAC5AMAAwgDHAMwA0wD2ARkBHAAAAAAAAAIBAAAAAAAA\
        ABIAAAAAAAAAAAAAAAAAAAEe
        """) ?? Data()

    /// A keyed archive written by Python's plistlib, an independent writer:
    /// `{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(1)},
    ///   "$objects": ["$null", "hello", UID(300), UID(2**40)]}`.
    static let pythonKeyedArchive = Data(base64Encoded: """
        YnBsaXN0MDDUAQIDBAUGCw5ZJGFyY2hpdmVyWCRvYmplY3RzVCR0b3BYJHZlcnNpb25fEA9OU0tleWVkQXJjaGl2ZXKkBwgJClUkbnVsbFVoZWxs\
        b4EBLIcAAAEAAAAAANEMDVRyb290gAESAAGGoAgRGyQpMkRJT1VYYWRpawAAAAAAAAEBAAAAAAAAAA8AAAAAAAAAAAAAAAAAAABw
        """) ?? Data()

    /// Assembles a binary property list from raw object bytes, for inputs the writer never
    /// makes. Trailer fields can be overridden; offsets are 2 bytes when the objects need it.
    static func handmade(
        _ objects: [[UInt8]], top: UInt64 = 0, referenceSize: UInt8 = 1,
        objectCount: UInt64? = nil, offsetTableOffset: UInt64? = nil
    ) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableStart = bytes.count
        let offsetSize = tableStart > 0xFF ? 2 : 1
        for offset in offsets { bytes += bigEndian(UInt64(offset), size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), referenceSize]
        bytes += bigEndian(objectCount ?? UInt64(objects.count), size: 8)
        bytes += bigEndian(top, size: 8)
        bytes += bigEndian(offsetTableOffset ?? UInt64(tableStart), size: 8)
        return Data(bytes)
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }

    // MARK: Foundation's object form

    /// The value as Foundation's property list objects.
    static func foundationObject(_ value: PropertyListValue) -> Any {
        switch value {
        case .string(let string): string
        case .integer(let integer): integer
        case .real(let real): real
        case .boolean(let boolean): boolean
        case .date(let date): date
        case .data(let data): data
        case .array(let array): array.map(foundationObject)
        case .dictionary(let dictionary): dictionary.mapValues(foundationObject)
        case .uid(let uid): uid
        }
    }

    /// Foundation's property list objects as a value, or `nil` for an object it cannot be.
    static func value(fromFoundation object: Any) -> PropertyListValue? {
        switch object {
        case let boolean as Bool where type(of: object) == Bool.self: return .boolean(boolean)
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            return type == "d" || type == "f" ? .real(number.doubleValue) : .integer(number.int64Value)
        case let array as [Any]:
            let elements = array.compactMap(value(fromFoundation:))
            return elements.count == array.count ? .array(elements) : nil
        case let dictionary as [String: Any]:
            let values = dictionary.compactMapValues(value(fromFoundation:))
            return values.count == dictionary.count ? .dictionary(values) : nil
        default: return nil
        }
    }
}
