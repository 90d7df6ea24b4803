import Foundation

/// The object graph of an `NSKeyedArchiver` archive, for readers that walk archives of classes
/// other than Foundation's value classes (Core Data's compiled models) without ever
/// instantiating a class by name: each archived object is its class name and its fields, and
/// references are followed by the reader itself. Value objects (strings, numbers, dates,
/// arrays, dictionaries, …) inside the graph decode through ``KeyedArchive``'s allow-list.
///
/// For example:
///
/// ```swift
/// let graph = try KeyedArchiveGraph(data)
/// let model = try graph.instance(at: graph.root)          // class "NSManagedObjectModel"
/// let name = try graph.string(model?.fields["NSEntityName"])
/// ```
package struct KeyedArchiveGraph: Sendable {
    /// One archived object: its class and its fields as written.
    package struct Instance: Sendable {
        /// The reference it was found at.
        package let reference: UInt64
        /// `$classname` of its class description.
        package let className: String
        /// Every field, `$class` included.
        package let fields: [String: PropertyListValue]

        /// The field `key`; `nil` when absent or the `$null` reference.
        package subscript(key: String) -> PropertyListValue? {
            guard let field = fields[key] else { return nil }
            if case .uid(0) = field { return nil }
            return field
        }
    }

    /// `$objects`.
    package let objects: [PropertyListValue]
    /// The reference under `$top`'s `root` key (or its only key).
    package let root: UInt64

    /// Reads the archive's outer structure.
    ///
    /// - Throws: ``PropertyListError``: the property list's own errors, or `.notKeyedArchive`.
    package init(_ data: Data, limits: BinaryPropertyListReader.Limits = .init()) throws(PropertyListError) {
        let top = try BinaryPropertyListReader(limits: limits).read(data)
        guard case .dictionary(let archive) = top, archive["$archiver"]?.stringValue == "NSKeyedArchiver",
            case .array(let objects)? = archive["$objects"],
            case .dictionary(let roots)? = archive["$top"]
        else {
            throw PropertyListError(.notKeyedArchive, "the property list is not an NSKeyedArchiver archive ($archiver, $objects and $top)")
        }
        guard let root = roots["root"] ?? roots.sorted(by: { $0.key < $1.key }).first?.value, case .uid(let reference) = root else {
            throw PropertyListError(.notKeyedArchive, "the archive's $top has no root object")
        }
        self.objects = objects
        self.root = reference
    }

    /// The reference a field holds; `nil` for an absent field or `$null`.
    ///
    /// - Throws: `.corrupt` when the field is not a reference or points outside `$objects`.
    package func reference(_ field: PropertyListValue?) throws(PropertyListError) -> UInt64? {
        guard let field else { return nil }
        guard case .uid(let reference) = field else {
            throw PropertyListError(.corrupt, "a field that should be a reference is a \(field.kindName)")
        }
        guard reference < objects.count else {
            throw PropertyListError(.corrupt, "object reference \(reference) out of range (\(objects.count) objects)")
        }
        return reference == 0 ? nil : reference
    }

    /// The object at `reference` when it is an archived instance; `nil` for `$null` and for
    /// plain values (strings, numbers).
    ///
    /// - Throws: `.corrupt` for a reference out of range or an instance without a valid `$class`.
    package func instance(at reference: UInt64) throws(PropertyListError) -> Instance? {
        guard reference < objects.count else {
            throw PropertyListError(.corrupt, "object reference \(reference) out of range (\(objects.count) objects)")
        }
        guard reference != 0, case .dictionary(let fields) = objects[Int(reference)], fields["$classname"] == nil else { return nil }
        guard case .uid(let classReference)? = fields["$class"], classReference < objects.count,
            case .dictionary(let description) = objects[Int(classReference)],
            let name = description["$classname"]?.stringValue
        else {
            throw PropertyListError(.corrupt, "object \(reference) has no valid $class")
        }
        return Instance(reference: reference, className: name, fields: fields)
    }

    /// The instance a field refers to (`nil` for an absent field or `$null`).
    package func instance(_ field: PropertyListValue?) throws(PropertyListError) -> Instance? {
        guard let reference = try reference(field) else { return nil }
        return try instance(at: reference)
    }

    /// The value a field holds, decoded with ``KeyedArchive``'s allow-list of Foundation value
    /// classes: a scalar written inline, or a reference to a string, number, date, array,
    /// dictionary, …; `nil` for an absent field or `$null`.
    ///
    /// - Throws: ``PropertyListError`` — `.classNotAllowed` when the value holds an object of
    ///   another class, `.corrupt`, `.cyclicReference`, `.nestingTooDeep`.
    package func value(_ field: PropertyListValue?) throws(PropertyListError) -> Any? {
        guard let field else { return nil }
        switch field {
        case .uid(let reference):
            guard reference < objects.count else {
                throw PropertyListError(.corrupt, "object reference \(reference) out of range (\(objects.count) objects)")
            }
            var reader = KeyedArchive.ArchiveReader(objects: objects)
            return try reader.value(at: reference, depth: 0)
        case .string(let string): return string
        case .integer(let integer): return Int(exactly: integer) ?? integer
        case .real(let real): return real
        case .boolean(let boolean): return boolean
        case .data(let data): return data
        case .date, .array, .dictionary:
            throw PropertyListError(.corrupt, "a field holds a bare \(field.kindName)")
        }
    }

    /// The string a field holds (inline, or an `NSString` object); `nil` when absent or `$null`.
    ///
    /// - Throws: `.corrupt` when the field holds something else.
    package func string(_ field: PropertyListValue?) throws(PropertyListError) -> String? {
        guard let field else { return nil }
        if case .string(let string) = field { return string }
        guard let reference = try reference(field) else { return nil }
        switch objects[Int(reference)] {
        case .string(let string): return string
        case .dictionary:
            guard let instance = try instance(at: reference), ["NSString", "NSMutableString"].contains(instance.className),
                let string = instance.fields["NS.string"]?.stringValue
            else {
                throw PropertyListError(.corrupt, "object \(reference) should be a string")
            }
            return string
        default:
            throw PropertyListError(.corrupt, "object \(reference) should be a string, not a \(objects[Int(reference)].kindName)")
        }
    }

    /// The members of a collection (`NSArray`, `NSSet`, `NSOrderedSet` and their mutable
    /// forms) as references; `nil` when the field is absent or `$null`.
    ///
    /// - Throws: `.corrupt` when the field refers to anything else.
    package func members(_ field: PropertyListValue?) throws(PropertyListError) -> [UInt64]? {
        guard let instance = try instance(field) else {
            if try reference(field) != nil { throw PropertyListError(.corrupt, "a field that should hold a collection holds a plain value") }
            return nil
        }
        guard Self.collectionClasses.contains(instance.className) else {
            throw PropertyListError(.corrupt, "object \(instance.reference) is a \(instance.className), not an array or set")
        }
        return try references(instance.fields["NS.objects"], in: instance)
    }

    /// The entries of a dictionary (`NSDictionary`, `NSMutableDictionary`, or Core Data's
    /// `NSKnownKeysDictionary1` with its `searchMapping` keys and `values`), in archive order,
    /// with string keys; `nil` when the field is absent or `$null`.
    ///
    /// - Throws: `.corrupt` when the field refers to anything else or a key is not a string.
    package func entries(_ field: PropertyListValue?) throws(PropertyListError) -> [(key: String, value: UInt64)]? {
        guard let instance = try instance(field) else {
            if try reference(field) != nil { throw PropertyListError(.corrupt, "a field that should hold a dictionary holds a plain value") }
            return nil
        }
        let keys: [UInt64]
        let values: [UInt64]
        switch instance.className {
        case "NSDictionary", "NSMutableDictionary":
            keys = try references(instance.fields["NS.keys"], in: instance)
            values = try references(instance.fields["NS.objects"], in: instance)
        case "NSKnownKeysDictionary1", "NSKnownKeysDictionary":
            guard let mapping = try self.instance(instance["searchMapping"]) else {
                throw PropertyListError(.corrupt, "\(instance.className) \(instance.reference) has no searchMapping")
            }
            keys = try members(mapping["keys"]) ?? []
            values = try members(instance["values"]) ?? []
        default:
            throw PropertyListError(.corrupt, "object \(instance.reference) is a \(instance.className), not a dictionary")
        }
        guard keys.count == values.count else {
            throw PropertyListError(.corrupt, "dictionary \(instance.reference) has \(keys.count) keys for \(values.count) values")
        }
        var result: [(key: String, value: UInt64)] = []
        result.reserveCapacity(keys.count)
        for (key, value) in zip(keys, values) {
            guard let name = try string(.uid(key)) else {
                throw PropertyListError(.corrupt, "dictionary \(instance.reference) has a key that is not a string")
            }
            result.append((name, value))
        }
        return result
    }

    private static let collectionClasses: Set<String> = [
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet",
    ]

    private func references(_ field: PropertyListValue?, in instance: Instance) throws(PropertyListError) -> [UInt64] {
        guard case .array(let elements)? = field else {
            throw PropertyListError(.corrupt, "\(instance.className) \(instance.reference) has no NS.objects/NS.keys list")
        }
        var result: [UInt64] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .uid(let reference) = element, reference < objects.count else {
                throw PropertyListError(.corrupt, "\(instance.className) \(instance.reference) holds something that is not a valid reference")
            }
            result.append(reference)
        }
        return result
    }
}
