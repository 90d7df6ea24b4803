import Foundation
import StoreCore

/// An error of the sync engine: what failed, and for which entity or side.
///
/// Match a case by its code, as with ``StoreError``:
///
/// ```swift
/// do {
///     try await engine.sync()
/// } catch SyncError.Code.historyTokenExpired {
///     try await engine.resynchronize()      // the server purged history this client had not pulled
/// }
/// ```
public struct SyncError: CodedError, CustomStringConvertible, Sendable {
    /// The error's code.
    public typealias Code = ErrorCode<SyncError>
    /// What went wrong.
    public let code: Code
    /// The entity concerned, when there is one.
    public let entity: String?
    /// A sentence saying what happened and what to do.
    public let message: String
    /// The error that caused this one (a store's, a save's).
    public let underlyingError: (any Error)?

    /// Creates an error.
    public init(_ code: Code, entity: String? = nil, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.entity = entity
        self.message = message
        self.underlyingError = underlying
    }

    public var description: String {
        var text = message
        if let entity { text += " [\(entity)]" }
        if let underlyingError { text += ": \(underlyingError)" }
        return text
    }
}

extension ErrorCode where Domain == SyncError {
    /// The model lacks ``SyncEngine/modelEntities()``.
    public static let modelNotPrepared = Self("modelNotPrepared")
    /// The model has something the engine cannot sync (an ordered relationship, a relationship
    /// into an excluded entity), or the local and server models differ.
    public static let unsupportedModel = Self("unsupportedModel")
    /// A store is missing, or does not track persistent history (both stores must).
    public static let storeNotReady = Self("storeNotReady")
    /// The server deleted history this client had not pulled yet (Core Data's
    /// `NSPersistentHistoryTokenExpiredError`): call ``SyncEngine/resynchronize()``. Also thrown
    /// when the *local* store's history after the last pushed token was deleted; see docs/sync.md.
    public static let historyTokenExpired = Self("historyTokenExpired")
    /// The local store last synced with another server store.
    public static let serverMismatch = Self("serverMismatch")
    /// Reading or writing one of the stores failed; ``SyncError/underlyingError`` says why
    /// (a store's error, such as a server restarting mid-sync). Nothing is lost: the next sync
    /// starts again from the last saved tokens.
    public static let storeFailed = Self("storeFailed")
}

extension SyncError {
    /// Runs `work`; an error that is not a ``SyncError`` (a store's read failing, a server
    /// restarting) is thrown as `storeFailed` with it as the underlying error.
    static func mappingStoreFailures<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storeFailed, "reading or writing a store failed; the tokens did not move past what was written, so the next sync resumes", underlying: error)
        }
    }
}
