import Foundation

/// A problem with a persistent store: an unknown store type, a store that cannot be opened,
/// read or written, a read-only store asked to save, or an object the store does not hold.
///
/// Like Core Data's `NSPersistentStore…Error` codes in `NSCocoaErrorDomain`, each error carries
/// a ``code`` a program can act on; when a lower layer failed (SQLite, PostgreSQL, the file
/// system), ``underlyingError`` keeps that failure as it was thrown (Core Data's
/// `NSUnderlyingErrorKey`). docs/errors.md lists every code.
///
/// For example:
///
/// ```swift
/// do {
///     try context.save()
/// } catch StoreError.Code.readOnly {
///     print("this store was opened read-only")
/// } catch let error as StoreError where error.code == .io {
///     print(error, error.underlyingError.map { "\($0)" } ?? "")
/// }
/// ```
public struct StoreError: CodedError, CustomStringConvertible, Sendable {
    /// The codes of store errors: `unknownStoreType`, `io`, … (docs/errors.md).
    public typealias Code = ErrorCode<StoreError>
    /// What kind of problem this is; match it with `==` or in `catch StoreError.Code.readOnly`.
    public let code: Code
    /// The store's location, if it has one.
    public let url: URL?
    /// The object concerned, if any.
    public let objectID: ManagedObjectID?
    /// What went wrong, in words.
    public let message: String
    /// The failure of a lower layer that caused this one, as it was thrown: a `SQLiteError`
    /// (its result code, SQLite's message and the statement), a PostgreSQL error, or a Foundation
    /// file error. `nil` when Stowage itself found the problem.
    public let underlyingError: (any Error)?

    /// An error with the given code and message; `underlying` keeps the cause, when there is one.
    public init(_ code: Code, url: URL? = nil, objectID: ManagedObjectID? = nil, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.url = url
        self.objectID = objectID
        self.message = message
        self.underlyingError = underlying
    }

    public var description: String {
        var text = message
        if let url { text += " (\(url.path))" }
        if let objectID { text += " [\(objectID)]" }
        return text
    }
}

extension ErrorCode where Domain == StoreError {
    /// No store type is registered under the description's type name.
    public static let unknownStoreType = Self("unknownStoreType")
    /// The store type is one of Stowage's own, but this build leaves it out: the PostgreSQL store
    /// without the `Postgres` package trait. The message says how to turn the trait on.
    public static let storeTypeUnavailable = Self("storeTypeUnavailable")
    /// The coordinator has no store loaded (or none that can hold the object or answer the request).
    public static let noStores = Self("noStores")
    /// A store with this description's URL is already loaded in the coordinator — or one the
    /// coordinator was asked to replace or destroy (remove it first).
    public static let storeAlreadyLoaded = Self("storeAlreadyLoaded")
    /// The store was opened read-only (or for inspection) and was asked to change.
    public static let readOnly = Self("readOnly")
    /// The store holds no object with this ID (deleted elsewhere, or never saved).
    public static let objectNotFound = Self("objectNotFound")
    /// The object ID belongs to another store or coordinator, or an object was related across stores.
    public static let wrongStore = Self("wrongStore")
    /// The store was written with a model whose version hashes differ from the model given
    /// (Core Data's `NSPersistentStoreIncompatibleVersionHashError`); migrate it first.
    public static let incompatibleModel = Self("incompatibleModel")
    /// A store option or description field has a value the store cannot use, or a value cannot
    /// be written in the store's format.
    public static let invalidOption = Self("invalidOption")
    /// The file system, the database engine or the server failed; ``StoreError/underlyingError``
    /// holds its error. A busy SQLite database after the busy timeout is reported this way too.
    public static let io = Self("io")
    /// The store's file is damaged or not a database (SQLite's `SQLITE_CORRUPT`/`SQLITE_NOTADB`,
    /// or an atomic store's content that does not decode).
    public static let corrupt = Self("corrupt")
    /// The store type cannot run this request (a batch request on an atomic store, for example,
    /// or replacing or destroying the files of a store type that has none: in-memory, PostgreSQL).
    public static let unsupportedRequest = Self("unsupportedRequest")
    /// A history fetch asked for the transactions after a token older than history that was
    /// deleted since (Core Data's `NSPersistentHistoryTokenExpiredError`): transactions after the
    /// token are gone, so what it would return is incomplete. Start again from the current state:
    /// refetch your objects and keep `currentPersistentHistoryToken()` as the new token.
    public static let persistentHistoryTokenExpired = Self("persistentHistoryTokenExpired")
    /// A query generation could not be pinned (the store cannot pin one, or holds as many as it
    /// allows), or a pinned one outlived the store's limit and was released.
    public static let queryGenerationUnavailable = Self("queryGenerationUnavailable")
    /// The database server could not be reached within the connect timeout, or the connection
    /// was lost while a call ran (a server restart, a terminated backend); the call failed and
    /// changed nothing, and later calls connect again. `underlyingError` holds the server's or the
    /// connection's error (for PostgreSQL, a `PostgresServerError` with the server's SQLSTATE).
    public static let serverUnavailable = Self("serverUnavailable")
    /// The connection was lost after a save's `COMMIT` was sent, and the server could not be
    /// asked within the connect timeout whether it committed. The store refuses to write until it
    /// has found out: a save that follows either proceeds (the first one did not commit) or fails
    /// with this code once more, saying the first one did commit — so nothing is written twice.
    public static let commitOutcomeUnknown = Self("commitOutcomeUnknown")
    /// A TLS connection to the database server could not be made as the store's settings ask
    /// (PostgreSQL's `sslmode`): the server's certificate does not chain to the root certificate
    /// given, or is not for the host name connected to (`verify-full`), the handshake failed, or
    /// the server does not accept TLS where it is required. Not retried, since connecting again
    /// would fail the same way; `underlyingError` holds the TLS layer's error.
    public static let serverNotTrusted = Self("serverNotTrusted")
}

extension ErrorCode where Domain == StoreError {
    /// The file is not a store of the expected type (another format, or not a store at all).
    public static let wrongFormat = Self("wrongFormat")
    /// The file ends before its contents do.
    public static let truncated = Self("truncated")
    /// The file holds an object of an entity the model does not have.
    public static let unknownEntity = Self("unknownEntity")
    /// The file holds a value for a property the model's entity does not have.
    public static let unknownProperty = Self("unknownProperty")
    /// A relationship refers to an object the store does not hold (or of the wrong entity).
    public static let danglingReference = Self("danglingReference")
    /// Another process or coordinator replaced the store's file since this store read it.
    public static let modifiedExternally = Self("modifiedExternally")
    /// The store's file (or directory) already exists where a new store was to be created.
    public static let alreadyExists = Self("alreadyExists")
}
