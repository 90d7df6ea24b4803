#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// What a write does when the connection is lost after its `COMMIT` was sent: the transaction
/// may or may not have committed, and only the server knows. The store asks it
/// (`txid_status`, on a connection of its own, waiting for the server up to the connect timeout):
///
/// - committed: the save succeeded, and the call returns as if nothing had happened;
/// - aborted: nothing was saved; the call throws `serverUnavailable` and the context keeps its
///   changes, to be saved again;
/// - no answer in time: the call throws `commitOutcomeUnknown`, and the store remembers the
///   transaction: the next write asks again first and is refused while the answer is unknown,
///   and once more when it turns out the earlier save did commit, or the server no longer
///   remembers (so the context's retry never writes the same changes twice).
///
/// For example:
///
/// ```swift
/// try connection.transaction(resolveLostCommit: resolveLostCommit) { try writer.write(changes) }
/// ```
extension PostgresStore {
    /// What the server says of a transaction, by ID (`forgotten`: too old for it to remember), or
    /// `unknown` when it could not be asked.
    enum CommitStatus { case committed, aborted, inProgress, forgotten, unknown }

    /// Called by a write transaction whose connection was lost after `COMMIT` was sent.
    func resolveLostCommit(_ transactionID: Int64, _ lost: PostgresServerError) throws {
        let deadline = Date(timeIntervalSinceNow: pool.options.connectTimeout)
        var status = CommitStatus.unknown
        do {
            let connection = try pool.makeDedicatedConnection(role: "recovery")
            defer { connection.close() }
            status = try Self.status(of: transactionID, on: connection)
            // The server ends the session's transaction as it notices the connection is gone.
            while status == .inProgress, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                status = try Self.status(of: transactionID, on: connection)
            }
        } catch let error as StoreError where error.code == .serverUnavailable {
            status = .unknown
        } catch let error as PostgresServerError where error.isConnectionLost {
            status = .unknown
        }
        switch status {
        case .committed:
            return
        case .aborted:
            throw StoreError(.serverUnavailable, url: url, "the connection to PostgreSQL was lost as the save committed, and the server rolled it back; nothing was saved (\(lost))", underlying: lost)
        case .inProgress, .forgotten, .unknown:
            unresolvedCommit.withLock { $0 = transactionID }
            throw StoreError(
                .commitOutcomeUnknown, url: url,
                "the connection to PostgreSQL was lost after the save's COMMIT was sent, and the server could not say within \(Int(pool.options.connectTimeout)) s whether transaction \(transactionID) committed; the store writes nothing more until it knows (\(lost))",
                underlying: lost)
        }
    }

    /// Before a write: if an earlier save's outcome is still unknown, asks the server. Throws
    /// `commitOutcomeUnknown` while it cannot tell, and once when that save turns out to have
    /// committed; returns when it did not (the earlier save's changes may be saved again).
    func checkEarlierCommit() throws {
        guard let transactionID = unresolvedCommit.withLock({ $0 }) else { return }
        let status = try server { try pool.withConnection { try Self.status(of: transactionID, on: $0) } }
        switch status {
        case .aborted:
            unresolvedCommit.withLock { $0 = nil }
        case .committed:
            unresolvedCommit.withLock { $0 = nil }
            throw StoreError(
                .commitOutcomeUnknown, url: url,
                "the earlier save whose outcome was unknown (transaction \(transactionID)) did commit: its changes are in the store; refresh the context's objects rather than saving them again; nothing was saved now")
        case .forgotten:
            unresolvedCommit.withLock { $0 = nil }
            throw StoreError(
                .commitOutcomeUnknown, url: url,
                "the server no longer remembers whether an earlier save (transaction \(transactionID)) committed; refresh the context's objects before saving them again; nothing was saved now")
        case .inProgress, .unknown:
            throw StoreError(
                .commitOutcomeUnknown, url: url,
                "the server cannot yet say whether an earlier save (transaction \(transactionID)) committed; nothing was saved")
        }
    }

    private static func status(of transactionID: Int64, on connection: PostgresSession) throws -> CommitStatus {
        switch try connection.scalar("SELECT txid_status($1)", [.integer(transactionID)]) {
        case .text("committed")?: .committed
        case .text("aborted")?: .aborted
        case .text("in progress")?: .inProgress
        default: .forgotten
        }
    }
}
#endif
