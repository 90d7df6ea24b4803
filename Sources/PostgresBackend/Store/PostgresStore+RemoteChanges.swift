#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresNIO
import StoreCore
import Synchronization

extension PostgresStore: ChangeObservableStore {
    /// The channel every save of this store notifies, `stowage_<schema>`.
    var notificationChannel: String { "stowage_\(schemaName)" }

    /// Sends the store's notification inside a save's transaction; PostgreSQL delivers it to every
    /// listening connection — in any process, on any machine — when the transaction commits. The
    /// same statement reads the transaction's ID, which a `COMMIT` cut off needs
    /// (``PostgresSession/transaction(_:resolveLostCommit:_:)``), saving a round trip.
    package func announceCommit(on connection: PostgresSession) throws {
        let row = try connection.query("SELECT pg_notify($1, $2), txid_current()", [.text(notificationChannel), .text(identifier)]).first
        if case .integer(let id)? = row?.value(at: 1) { connection.transactionID = id }
    }

    /// A probe whose stamp is the number of commits announced on the store's channel, counted
    /// by a connection of its own that `LISTEN`s (opened on the first call). The coordinator's
    /// watcher reads the stamp locally; the server is never polled. When that connection is lost
    /// the listener connects again (with backoff, for as long as the store is loaded), listens
    /// again and moves the stamp once: what was committed while it was away is unknown, so
    /// observers are told to look again.
    public func makeChangeProbe() throws -> @Sendable () throws -> String {
        let listener = try changeListenerStarting()
        return { String(listener.count) }
    }

    private func changeListenerStarting() throws -> PostgresChangeListener {
        try listenerState.withLock { state in
            if let listener = state { return listener }
            let pool = self.pool
            let listener = PostgresChangeListener(channel: notificationChannel) { try pool.makeDedicatedConnection(role: "listener") }
            do {
                try listener.start()
            } catch {
                listener.stop()
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

/// A connection that listens on a channel and counts the notifications it receives, and that
/// connects and listens again whenever its connection is lost, counting one more notification
/// when it is back.
///
/// For example:
///
/// ```swift
/// let listener = PostgresChangeListener(channel: "stowage_blog") { try pool.makeDedicatedConnection(role: "listener") }
/// try listener.start()
/// listener.count      // grows with every commit announced on the channel
/// ```
final class PostgresChangeListener: Sendable {
    private struct State {
        var connection: PostgresSession?
        var context: PostgresListenContext?
        var isStopped = false
    }

    let channel: String
    private let connect: @Sendable () throws -> PostgresSession
    private let received = Atomic<Int>(0)
    private let state = Mutex(State())
    /// How long to wait before the next attempt to connect again, doubling to ``maximumDelay``.
    static let firstDelay = 0.05
    static let maximumDelay = 2.0

    init(channel: String, connect: @escaping @Sendable () throws -> PostgresSession) {
        self.channel = channel
        self.connect = connect
    }

    var count: Int { received.load(ordering: .relaxed) }

    /// Connects and listens; throws when the first connection or `LISTEN` fails.
    func start() throws {
        try listen(on: connect())
    }

    private func listen(on connection: PostgresSession) throws {
        let listenContext = connection.connection.addListener(channel: channel) { [weak self] _, _ in
            self?.received.add(1, ordering: .relaxed)
        }
        let stopped = state.withLock { state in
            if !state.isStopped { state = State(connection: connection, context: listenContext) }
            return state.isStopped
        }
        guard !stopped else {
            listenContext.stop()
            connection.close()
            return
        }
        connection.connection.closeFuture.whenComplete { [weak self] _ in
            // On the connection's event loop, where nothing may wait: reconnect elsewhere.
            guard let self else { return }
            DispatchQueue.global().async { self.reconnect(after: connection) }
        }
        do {
            try connection.run("LISTEN \(channel)")
        } catch {
            connection.close()   // its close handler tries again
            throw error
        }
    }

    /// Connects and listens again after `lost` closed, until it works or the listener is stopped;
    /// then moves the count once, since notifications may have been missed meanwhile. (If the new
    /// connection fails while it starts to listen, its own close handler takes over.)
    private func reconnect(after lost: PostgresSession) {
        var delay = Self.firstDelay
        while state.withLock({ !$0.isStopped && $0.connection === lost }) {
            let connection: PostgresSession
            do {
                connection = try connect()
            } catch {
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, Self.maximumDelay)
                continue
            }
            do {
                try listen(on: connection)
                received.add(1, ordering: .relaxed)
            } catch {
                // `listen` closed the new connection; its close handler tries again.
            }
            return
        }
    }

    func stop() {
        let (connection, context) = state.withLock { state in
            defer { state = State(isStopped: true) }
            return (state.connection, state.context)
        }
        context?.stop()
        connection?.close()
    }
}
#endif
