import Foundation
import StoreCore

extension PersistentStoreOption {
    /// A SQLite pragma run on every connection (Core Data's `NSSQLitePragmasOption`), for
    /// example `.sqlitePragma("synchronous")` = `"FULL"`.
    public static func sqlitePragma(_ name: String) -> PersistentStoreOption {
        PersistentStoreOption(rawValue: pragmaPrefix + name)
    }

    static let pragmaPrefix = "NSSQLitePragmasOption."

    /// Binary values of attributes that allow external storage are written to files beside
    /// the store when larger than this many bytes (default 100 KiB).
    public static let sqliteExternalStorageThreshold = PersistentStoreOption(rawValue: "StowageSQLiteExternalStorageThreshold")
    /// The most reader connections the store opens (default 4).
    public static let sqliteMaximumReaders = PersistentStoreOption(rawValue: "StowageSQLiteMaximumReaders")
    /// The most query generations contexts may hold pinned at once (default 4): each holds a read
    /// transaction on a connection of its own. Pinning more fails with
    /// `queryGenerationUnavailable`.
    public static let sqliteMaximumQueryGenerations = PersistentStoreOption(rawValue: "StowageSQLiteMaximumQueryGenerations")
    /// How long, in seconds, a pinned query generation may hold its read transaction (default
    /// 300). Past it the transaction ends — so WAL checkpoints can pass it — and the pinned
    /// context's next read fails with `queryGenerationUnavailable` until
    /// it moves to a new generation (a save, `reset()`, or `setQueryGenerationFrom(.current)`).
    public static let sqliteQueryGenerationLifetime = PersistentStoreOption(rawValue: "StowageSQLiteQueryGenerationLifetime")
}

extension PersistentStoreDescription {
    /// Sets a SQLite pragma for every connection of the store; `nil` removes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// description.setSQLitePragma("synchronous", "FULL")
    /// description.setSQLitePragma("journal_mode", "DELETE")   // WAL is the default
    /// ```
    public mutating func setSQLitePragma(_ name: String, _ value: String?) {
        setOption(value.map(StoreValue.string), forKey: .sqlitePragma(name))
    }
}

/// The SQLite-specific options of a store description, checked once when the store opens.
struct SQLiteStoreOptions {
    var pragmas: [(name: String, value: String)] = [("journal_mode", "WAL")]
    var busyTimeout: Double
    var maximumReaders = 4
    var externalStorageThreshold = 100 * 1024
    var maximumQueryGenerations = 4
    var queryGenerationLifetime: Double = 300
    var readOnly: Bool

    init(_ description: PersistentStoreDescription) throws {
        busyTimeout = description.timeout
        readOnly = description.isReadOnly
        for (key, value) in description.options.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if key.rawValue.hasPrefix(PersistentStoreOption.pragmaPrefix) {
                let name = String(key.rawValue.dropFirst(PersistentStoreOption.pragmaPrefix.count))
                let text: String
                switch value {
                case .string(let string): text = string
                case .integer(let number): text = String(number)
                case .boolean(let flag): text = flag ? "ON" : "OFF"
                default: throw StoreError(.invalidOption, "SQLite pragma \(name) needs a string or integer value, not \(value.kindName)")
                }
                guard Self.isSafe(name, allowing: "_"), Self.isSafe(text, allowing: "_-.") else {
                    throw StoreError(.invalidOption, "'\(name) = \(text)' is not a valid SQLite pragma setting")
                }
                pragmas.removeAll { $0.name.lowercased() == name.lowercased() }
                pragmas.append((name, text))
            } else if key == .sqliteExternalStorageThreshold {
                guard let number = value.numericValue, number >= 0 else {
                    throw StoreError(.invalidOption, "the external storage threshold must be a number of bytes")
                }
                externalStorageThreshold = Int(number)
            } else if key == .sqliteMaximumReaders {
                guard let number = value.numericValue, number >= 1, number <= 64 else {
                    throw StoreError(.invalidOption, "the maximum number of readers must be between 1 and 64")
                }
                maximumReaders = Int(number)
            } else if key == .sqliteMaximumQueryGenerations {
                guard let number = value.numericValue, number >= 0, number <= 64 else {
                    throw StoreError(.invalidOption, "the maximum number of query generations must be between 0 and 64")
                }
                maximumQueryGenerations = Int(number)
            } else if key == .sqliteQueryGenerationLifetime {
                guard let seconds = value.numericValue, seconds > 0 else {
                    throw StoreError(.invalidOption, "the query generation lifetime must be a positive number of seconds")
                }
                queryGenerationLifetime = seconds
            }
        }
    }

    private static func isSafe(_ text: String, allowing extra: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || extra.unicodeScalars.contains($0) }
    }

    func poolConfiguration(inMemory: Bool) -> SQLiteConnectionPool.Configuration {
        var configuration = SQLiteConnectionPool.Configuration()
        configuration.readOnly = readOnly
        configuration.maximumReaders = maximumReaders
        configuration.maximumPinnedReaders = maximumQueryGenerations
        configuration.pinnedReaderLifetime = queryGenerationLifetime
        configuration.busyTimeout = busyTimeout
        // A private in-memory database has no WAL; read-only connections cannot change the journal.
        configuration.pragmas = pragmas.filter { !(inMemory || readOnly) || $0.name.lowercased() != "journal_mode" }
        configuration.log = .fromEnvironment
        return configuration
    }
}
