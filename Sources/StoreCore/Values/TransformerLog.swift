import Logging
import Synchronization

/// What Core Data logs about transformable attributes, logged the same way (`stowage.model`).
///
/// Once per attribute, that a transformable attribute names a transformer nobody registered
/// and Core Data's default (``KeyedArchiveTransformer``) is used in its place — as Core Data
/// logs "no NSValueTransformer with class name 'X' was found for attribute 'a' on entity 'E'"
/// and goes on with its default transformer.
///
/// For example, the first value set on Wire's `linkAttachments` before its app registered
/// `ExtendedSecureUnarchiveFromData` logs:
///
/// ```
/// warning stowage.model : no transformer is registered under the name 'ExtendedSecureUnarchiveFromData' for AssetClientMessage.linkAttachments; using Core Data's default (NSKeyedUnarchiveFromData), as Core Data does
/// ```
///
/// And each time a ``Transformable`` property cannot be read (its stored data does not
/// decode, or its fault cannot be loaded), why — the getter, which cannot throw, reads `nil`,
/// as Core Data's does when its transformer fails to unarchive.
enum TransformerLog {
    /// The `stowage.model` logger, or the one a test logs to (``logging(to:_:)``).
    private static let logger = Mutex(Logger(label: "stowage.model"))
    private static let logged = Mutex<Set<String>>([])

    static func noteFallback(name: String, entity: String, key: String) {
        let isFirst = logged.withLock { $0.insert("\(name)|\(entity)|\(key)").inserted }
        guard isFirst else { return }
        logger.withLock { $0 }.warning("no transformer is registered under the name '\(name)' for \(entity).\(key); using Core Data's default (NSKeyedUnarchiveFromData), as Core Data does")
    }

    /// Runs `body` with the lines logged to `replacement` (for tests).
    static func logging<Result>(to replacement: Logger, _ body: () throws -> Result) rethrows -> Result {
        let original = logger.withLock { logger in
            defer { logger = replacement }
            return logger
        }
        defer { logger.withLock { $0 = original } }
        return try body()
    }

    static func noteUnreadableValue(_ error: any Error, key: String, of objectID: ManagedObjectID) {
        logger.withLock { $0 }.error("\(objectID.entityName).\(key) of \(objectID) cannot be read, so it reads as nil: \(error)")
    }
}
