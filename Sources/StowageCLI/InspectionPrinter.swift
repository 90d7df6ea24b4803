import Foundation
import Stowage

/// Collects `stowage inspect`'s output and prints it at the end (so that nothing is printed
/// for a store that fails half-way), and turns values into short, readable text.
///
/// For example:
///
/// ```swift
/// var output = InspectionPrinter()
/// output.line("Store: \(path)")
/// output.line("    " + InspectionPrinter.row(object))   // #3  name="Chocolate Cake"  type=RecipeType#2
/// output.flush()
/// ```
struct InspectionPrinter {
    private var lines: [String] = []

    mutating func line(_ text: String) { lines.append(text) }

    mutating func section(_ title: String, _ entries: [String]) {
        line("\(title):")
        for entry in entries { line("  " + entry) }
        line("")
    }

    func flush() {
        print(lines.joined(separator: "\n"))
    }

    /// One object: its key, then every property with a value.
    static func row(_ object: ManagedObject) -> String {
        var parts = ["#\(object.objectID.primaryKey.map(String.init) ?? "?")"]
        for property in object.entity.properties {
            guard let value = try? object.value(forKey: property.name) else { continue }
            if let set = value as? Set<ManagedObject>, set.isEmpty { continue }
            if let array = value as? [ManagedObject], array.isEmpty { continue }
            parts.append("\(property.name)=\(text(value))")
        }
        return parts.joined(separator: "  ")
    }

    /// A value as a short line: strings quoted and cut at 40 characters, data as its size,
    /// dates in ISO 8601, objects as `Entity#key`, to-manys as their first few members.
    static func text(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let text as String: return "\"" + truncated(text.replacingOccurrences(of: "\n", with: "⏎"), to: 40) + "\""
        case let data as Data: return "<\(data.count) bytes>"
        case let date as Date: return date.formatted(.iso8601)
        case let object as ManagedObject: return reference(object)
        case let objects as [ManagedObject]: return list(objects.map(reference))
        case let objects as Set<ManagedObject>:
            return list(objects.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }.map(reference))
        case let url as URL: return url.absoluteString
        case let uuid as UUID: return uuid.uuidString
        case let id as ManagedObjectID: return id.uriRepresentation.absoluteString
        case let value?: return truncated(String(describing: value), to: 40)
        }
    }

    static func truncated(_ text: String, to length: Int) -> String {
        text.count <= length ? text : text.prefix(length - 1) + "…"
    }

    private static func reference(_ object: ManagedObject) -> String {
        "\(object.objectID.entityName)#\(object.objectID.primaryKey.map(String.init) ?? "?")"
    }

    private static func list(_ items: [String]) -> String {
        let shown = items.prefix(5).joined(separator: ", ")
        return "[" + shown + (items.count > 5 ? ", … \(items.count) in all" : "") + "]"
    }
}
