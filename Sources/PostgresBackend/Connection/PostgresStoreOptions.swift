#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresNIO
import StoreCore

extension PersistentStoreOption {
    /// The PostgreSQL schema that holds the store's tables (default `stowage`; the URL's
    /// `?schema=` query item sets it too). One schema holds one store.
    public static let postgresSchema = PersistentStoreOption(rawValue: "StowagePostgresSchema")
    /// The most connections the store opens to the server (default 4; `?pool=` in the URL).
    public static let postgresPoolSize = PersistentStoreOption(rawValue: "StowagePostgresPoolSize")
    /// TLS over TCP, libpq's `sslmode` (`?sslmode=` in the URL): `"disable"` (the default; `"allow"`
    /// too), `"prefer"` (TLS when the server offers it), `"require"` (TLS, the certificate not
    /// checked), `"verify-ca"` (TLS, the certificate's chain checked against
    /// `postgresRootCertificate`) or `"verify-full"` (the chain and the host name). A certificate
    /// refused fails the connection with `StoreError` code `serverNotTrusted` (docs/postgres.md, "TLS").
    public static let postgresTLS = PersistentStoreOption(rawValue: "StowagePostgresTLS")
    /// The root certificate (CA) the server's certificate must chain to, libpq's `sslrootcert`
    /// (`?sslrootcert=` in the URL): the path of a PEM file of one or more CA certificates, or
    /// `"system"` for the system's trust roots (which asks for `verify-full`). `verify-ca` and
    /// `verify-full` need one; given with `prefer` or `require`, the chain is checked as well.
    public static let postgresRootCertificate = PersistentStoreOption(rawValue: "StowagePostgresRootCertificate")
}

/// Where the server is and how to talk to it, from a store description's URL and options:
///
/// ```
/// postgres://user:password@host:5432/database?schema=blog&pool=8&sslmode=require
/// postgres://user@db.example.com/database?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem
/// postgres://user@localhost/database?host=/var/run/postgresql        (a Unix-domain socket directory)
/// ```
///
/// Options set on the description win over the URL's query items.
struct PostgresStoreOptions: Sendable {
    /// libpq's `sslmode`s but `allow` (read as `disable`): what TLS is asked for and what of the
    /// server's certificate is checked (PostgresStoreOptions+TLS.swift).
    enum TLSMode: String, Sendable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    var host = "localhost"
    var port = 5432
    var socketDirectory: String?
    var username: String
    var password: String?
    var database: String?
    var schema = "stowage"
    var poolSize = 4
    var tls = TLSMode.disable
    /// `sslrootcert`: a PEM file's path, or `system`.
    var rootCertificate: String?
    var connectTimeout: TimeInterval

    init(_ description: PersistentStoreDescription) throws {
        guard let url = description.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "")
        else {
            throw StoreError(.invalidOption, url: description.url, "a PostgreSQL store needs a URL of the form postgres://user@host/database")
        }
        username = components.user.flatMap { $0.removingPercentEncoding } ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = components.password?.removingPercentEncoding
        if let host = components.host, !host.isEmpty { self.host = host.removingPercentEncoding ?? host }
        if let port = components.port { self.port = port }
        let path = components.path.drop { $0 == "/" }
        database = path.isEmpty ? nil : String(path)
        connectTimeout = min(description.timeout, 60)
        var settings: [String: StoreValue] = [:]
        for item in components.queryItems ?? [] { settings[item.name] = item.value.map(StoreValue.string) ?? .null }
        if let value = description.options[.postgresSchema] { settings["schema"] = value }
        if let value = description.options[.postgresPoolSize] { settings["pool"] = value }
        if let value = description.options[.postgresTLS] { settings["sslmode"] = value }
        if let value = description.options[.postgresRootCertificate] { settings["sslrootcert"] = value }
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) where name != "sslmode" {
            try apply(name, value)
        }
        try resolveTLS(settings["sslmode"].map { try Self.text(of: $0, name: "sslmode") })
    }

    /// A setting's value as text: a string, or a number written as an integer.
    private static func text(of value: StoreValue, name: String) throws -> String {
        let text: String? = if case .string(let string) = value { string } else if let number = value.numericValue { String(Int(number)) } else { nil }
        guard let text else { throw StoreError(.invalidOption, "the PostgreSQL setting \(name) needs a value") }
        return text
    }

    private mutating func apply(_ name: String, _ value: StoreValue) throws {
        let text = try Self.text(of: value, name: name)
        switch name {
        case "schema":
            guard Self.isIdentifier(text) else {
                throw StoreError(.invalidOption, "'\(text)' is not a usable schema name (letters, digits and _, starting with a letter or _, at most 63 bytes)")
            }
            schema = text.lowercased()
        case "pool":
            guard let size = Int(text), (1...64).contains(size) else {
                throw StoreError(.invalidOption, "the PostgreSQL pool size must be between 1 and 64, not \(text)")
            }
            poolSize = size
        case "sslrootcert":
            guard !text.isEmpty else { throw StoreError(.invalidOption, "sslrootcert needs the path of a PEM file of root certificates, or system") }
            rootCertificate = text
        case "host":
            if text.hasPrefix("/") { socketDirectory = text } else { host = text }
        case "user": username = text
        case "password": password = text
        case "port":
            guard let number = Int(text), (1...65535).contains(number) else { throw StoreError(.invalidOption, "'\(text)' is not a port") }
            port = number
        case "connect_timeout":
            guard let seconds = Double(text), seconds > 0 else { throw StoreError(.invalidOption, "'\(text)' is not a timeout in seconds") }
            connectTimeout = seconds
        default:
            throw StoreError(.invalidOption, "unknown PostgreSQL URL setting '\(name)' (schema, pool, sslmode, sslrootcert, host, port, user, password, connect_timeout)")
        }
    }

    /// A name PostgreSQL takes unquoted: letters, digits and `_`, not starting with a digit.
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.utf8.count <= 63 else { return false }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
        return !CharacterSet.decimalDigits.contains(first) && text.unicodeScalars.allSatisfy { allowed.contains($0) }
    }

    /// postgres-nio's configuration for one connection.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketDirectory {
            configuration = .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database)
        } else {
            configuration = .init(host: host, port: port, username: username, password: password, database: database, tls: try tlsConfiguration())
        }
        configuration.options.connectTimeout = .milliseconds(Int64(connectTimeout * 1000))
        return configuration
    }

    /// Where the store is, for messages: `user@host:port/database (schema s)`.
    var location: String {
        "\(username)@\(socketDirectory ?? host):\(port)/\(database ?? username) (schema \(schema))"
    }
}
#endif
