#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresNIO
import StoreCore
import Synchronization

extension PostgresStore: ChangeObservableStore {
    /// The channel every save of this store notifies, `stowage_<schema>`.
    var notificationChannel: String { "stowage_\(schemaName)" }

    /// Sends the store's notification inside a save's transaction; PostgreSQL delivers it to every
    /// listening connection — in any process, on any machine — when the transaction commits.
    func notifyCommit(on connection: ServerConnection) throws {
        try connection.run("SELECT pg_notify($1, $2)", [.text(notificationChannel), .text(identifier)])
    }

    /// A probe whose stamp is the number of commits announced on the store's channel, counted
    /// by a connection of its own that `LISTEN`s (opened on the first call). The coordinator's
    /// watcher reads the stamp locally; the server is never polled.
    public func makeChangeProbe() throws -> @Sendable () throws -> String {
        let listener = try changeListenerStarting()
        return { String(listener.count) }
    }

    private func changeListenerStarting() throws -> ChangeListener {
        try listenerState.withLock { state in
            if let listener = state { return listener }
            let connection = try server { try pool.makeDedicatedConnection() }
            let listener = ChangeListener(connection: connection)
            do {
                try listener.start(channel: notificationChannel)
            } catch {
                connection.close()
                throw Self.storeError(error, url: url)
            }
            state = listener
            return listener
        }
    }

    func stopListening() {
        let listener = listenerState.withLock { state in
            defer { state = nil }
            return state
        }
        listener?.stop()
    }
}

/// A connection that listens on a channel and counts the notifications it receives.
final class ChangeListener: Sendable {
    private let connection: ServerConnection
    private let received = Atomic<Int>(0)
    private let context = Mutex<PostgresListenContext?>(nil)

    init(connection: ServerConnection) {
        self.connection = connection
    }

    var count: Int { received.load(ordering: .relaxed) }

    func start(channel: String) throws {
        let listenContext = connection.connection.addListener(channel: channel) { [weak self] _, _ in
            self?.received.add(1, ordering: .relaxed)
        }
        context.withLock { $0 = listenContext }
        try connection.run("LISTEN \(channel)")
    }

    func stop() {
        context.withLock { $0?.stop() }
        connection.close()
    }
}
#endif
