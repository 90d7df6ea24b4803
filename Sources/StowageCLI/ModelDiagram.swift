import Stowage

/// A model drawn as a Graphviz graph (DOT): one box per entity listing its attributes and their
/// types, one arrow per relationship labelled with its name, cardinality, inverse and delete
/// rule, and a hollow-headed arrow from each sub-entity to its parent.
///
/// For example:
///
/// ```swift
/// let dot = ModelDiagram(model: try DemoModel.make(), title: "demo").dot
/// ```
struct ModelDiagram {
    let model: ManagedObjectModel
    let title: String

    var dot: String {
        var lines = [
            "digraph \(quoted(title)) {",
            "  graph [rankdir=LR, fontname=\"Helvetica\", label=\(quoted(title)), labelloc=t];",
            "  node [shape=plaintext, fontname=\"Helvetica\"];",
            "  edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        let entities = model.entities.sorted { $0.name < $1.name }
        for entity in entities {
            lines.append("  \(quoted(entity.name)) [label=<\(table(for: entity))>];")
        }
        for entity in entities {
            if let parent = entity.superentityName {
                lines.append("  \(quoted(entity.name)) -> \(quoted(parent)) [arrowhead=empty, style=dashed, label=\"sub-entity of\"];")
            }
            for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription }) {
                lines.append("  \(quoted(entity.name)) -> \(quoted(relationship.destinationEntityName)) [label=\(quoted(label(for: relationship))), arrowhead=\(relationship.isToMany ? "crow" : "normal")];")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The entity's box: its name (italic when abstract), then one row per attribute it declares.
    private func table(for entity: EntityDescription) -> String {
        let name = entity.isAbstract ? "<I>\(html(entity.name))</I> (abstract)" : html(entity.name)
        var rows = ["<TR><TD BGCOLOR=\"lightgrey\"><B>\(name)</B></TD></TR>"]
        for attribute in entity.declaredProperties.compactMap({ $0 as? AttributeDescription }) {
            var text = "\(attribute.name): \(attribute.attributeType.name)\(attribute.isOptional ? "?" : "")"
            if attribute.isTransient { text += " (transient)" }
            rows.append("<TR><TD ALIGN=\"LEFT\">\(html(text))</TD></TR>")
        }
        return "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\">\(rows.joined())</TABLE>"
    }

    /// `comments [0..*, ordered] ⇄ post · cascade`.
    private func label(for relationship: RelationshipDescription) -> String {
        let upper = relationship.isToMany ? (relationship.maxCount > 0 ? "\(relationship.maxCount)" : "*") : "1"
        let lower = relationship.isOptional ? 0 : max(relationship.minCount, 1)
        var text = "\(relationship.name) [\(lower)..\(upper)\(relationship.isOrdered ? ", ordered" : "")]"
        if let inverse = relationship.inverseName { text += " ⇄ \(inverse)" }
        return text + " · \(relationship.deleteRule)"
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
