#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresNIO
import StoreSQL

extension PostgresSession {
    /// Streams rows into `table` with `COPY … FROM STDIN` (text format), inside the caller's
    /// transaction: `produce` appends the next row (``copyRow(_:into:)``) and returns false when
    /// there is none. postgres-nio's COPY is async only, so it runs in a task this thread waits
    /// for — never on an event-loop thread (the pool refuses those). postgres-nio quotes the
    /// names, so they are passed as PostgreSQL folds the unquoted ones: in lower case.
    func copy(into table: String, columns: [String], _ produce: @escaping (inout ByteBuffer) throws -> Bool) throws {
        log.statement("COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN", [])
        let done = PostgresAnswer<Void>()
        let job = CopyJob(connection: connection, produce: produce, logger: log.logger)
        Task {
            await job.run(table: table.lowercased(), columns: columns.map { $0.lowercased() })
            done.complete(.success(()))
        }
        do {
            try done.wait { !connection.isClosed }
        } catch {
            markBroken()
            throw error
        }
        if let error = job.error as? PSQLError {
            let failure = PostgresServerError(error, sql: "COPY \(table)")
            if failure.isConnectionLost { markBroken() }
            throw failure
        }
        if let error = job.error { throw error }
    }

    /// One row in COPY's text format: values separated by tabs, NULL as `\N`, text with `\`,
    /// tab, newline and carriage return escaped, binary data as `\\x` and hex digits, doubles
    /// with PostgreSQL's names for infinity.
    static func copyRow(_ values: [SQLValue], into buffer: inout ByteBuffer) {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            switch value {
            case .null: buffer.writeStaticString("\\N")
            case .integer(let number): buffer.writeString(String(number))
            case .real(let number):
                if number.isInfinite { buffer.writeStaticString(number > 0 ? "Infinity" : "-Infinity") } else { buffer.writeString(String(number)) }
            case .text(let text):
                for byte in text.utf8 {
                    switch byte {
                    case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                    case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                    case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                    case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                    default: buffer.writeInteger(byte)
                    }
                }
            case .blob(let data):
                buffer.writeStaticString("\\\\x")
                let digits = Array("0123456789abcdef".utf8)
                for byte in data {
                    buffer.writeInteger(digits[Int(byte >> 4)])
                    buffer.writeInteger(digits[Int(byte & 0x0F)])
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }
}

/// The state of one COPY shared with the task that runs it.
private final class CopyJob: @unchecked Sendable {
    // @unchecked: `produce` and `error` are used by the task only while the thread that made the
    // job is blocked waiting for it, and read by that thread only after the task signalled.
    let connection: PostgresConnection
    let produce: (inout ByteBuffer) throws -> Bool
    let logger: Logger
    var error: (any Error)?

    init(connection: PostgresConnection, produce: @escaping (inout ByteBuffer) throws -> Bool, logger: Logger) {
        self.connection = connection
        self.produce = produce
        self.logger = logger
    }

    func run(table: String, columns: [String]) async {
        do {
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                var buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 16)
                while try self.produce(&buffer) {
                    if buffer.readableBytes >= 1 << 16 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        } catch {
            self.error = error
        }
    }
}
#endif
