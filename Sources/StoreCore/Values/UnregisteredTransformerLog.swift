import Logging
import Synchronization

/// Logs, once per attribute, that a transformable attribute names a transformer nobody
/// registered and Core Data's default (``KeyedArchiveTransformer``) is used in its place — as
/// Core Data logs "no NSValueTransformer with class name 'X' was found for attribute 'a' on
/// entity 'E'" and goes on with its default transformer.
///
/// For example, the first value set on Wire's `linkAttachments` before its app registered
/// `ExtendedSecureUnarchiveFromData` logs:
///
/// ```
/// warning stowage.model : no transformer is registered under the name 'ExtendedSecureUnarchiveFromData' for AssetClientMessage.linkAttachments; using Core Data's default (NSKeyedUnarchiveFromData), as Core Data does
/// ```
enum UnregisteredTransformerLog {
    private static let logger = Logger(label: "stowage.model")
    private static let logged = Mutex<Set<String>>([])

    static func noteFallback(name: String, entity: String, key: String) {
        let isFirst = logged.withLock { $0.insert("\(name)|\(entity)|\(key)").inserted }
        guard isFirst else { return }
        logger.warning("no transformer is registered under the name '\(name)' for \(entity).\(key); using Core Data's default (NSKeyedUnarchiveFromData), as Core Data does")
    }
}
