import Logging

/// Logs what a model's checks accepted with a warning (``ManagedObjectModel/warnings``), as Core
/// Data logs the flaws of a model it loads: one `warning` line per finding, through swift-log
/// with the label `stowage.model`.
///
/// For example, a model whose `Shelf.books` names an inverse that points elsewhere logs:
///
/// ```
/// warning stowage.model : model of Book, Shelf: Shelf.books: the inverse does not point back (…)
/// ```
enum ModelWarningLog {
    private static let logger = Logger(label: "stowage.model")

    static func log(_ warnings: [ModelError], of entityNames: [String], to logger: Logger = logger) {
        guard !warnings.isEmpty else { return }
        let model = entityNames.prefix(5).joined(separator: ", ") + (entityNames.count > 5 ? ", …" : "")
        for warning in warnings { logger.warning("model of \(model): \(warning)") }
    }
}
