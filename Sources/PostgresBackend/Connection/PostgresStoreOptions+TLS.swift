#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresNIO
import StoreCore

/// TLS as libpq's `sslmode` and `sslrootcert` ask for it (docs/postgres.md, "TLS"):
///
/// | sslmode | TLS | the server's certificate |
/// | --- | --- | --- |
/// | `disable`, `allow` | never | — |
/// | `prefer` | when the server offers it | not checked (the chain is, when `sslrootcert` is given) |
/// | `require` | always | not checked (the chain is, when `sslrootcert` is given) |
/// | `verify-ca` | always | its chain, up to `sslrootcert` |
/// | `verify-full` | always | its chain, and that it is for the host connected to |
///
/// A certificate refused, a failed handshake or a server without TLS when TLS is required ends
/// the connection attempt at once — trying again would fail the same way — with a `StoreError`
/// of code `serverNotTrusted` (``tlsRefusal(_:)``). Over a Unix-domain socket TLS is not used,
/// as with libpq.
extension PostgresStoreOptions {
    /// Sets ``tls`` from the `sslmode` given (nil: none was), checking it goes with
    /// ``rootCertificate``: `verify-ca` and `verify-full` need a root certificate, and the
    /// system's trust roots (`sslrootcert=system`) make `verify-full` the default and the only
    /// mode allowed — anyone can get a certificate a public CA signed for a name of their own.
    mutating func resolveTLS(_ mode: String?) throws {
        let asked: TLSMode?
        switch mode {
        case nil: asked = nil
        case "allow": asked = .disable
        case let name?:
            guard let known = TLSMode(rawValue: name) else {
                throw StoreError(.invalidOption, "unknown sslmode '\(name)' (disable, allow, prefer, require, verify-ca or verify-full)")
            }
            asked = known
        }
        if rootCertificate == "system" {
            guard asked == nil || asked == .verifyFull else {
                throw StoreError(.invalidOption, "sslrootcert=system needs sslmode=verify-full: with the system's trust roots, a certificate is only worth its host name")
            }
            tls = .verifyFull
            return
        }
        tls = asked ?? .disable
        if rootCertificate == nil, tls == .verifyCA || tls == .verifyFull {
            throw StoreError(.invalidOption, "sslmode=\(tls.rawValue) needs a root certificate to check the server's certificate against: sslrootcert=PATH (a PEM file of the CA that signed it; .postgresRootCertificate) or sslrootcert=system")
        }
    }

    /// postgres-nio's TLS setting for a TCP connection, with swift-nio-ssl's context: the root
    /// certificate is read here, when the store is opened, so a missing or unreadable file is an
    /// `invalidOption` then rather than a refusal at each connection.
    func tlsConfiguration() throws -> PostgresConnection.Configuration.TLS {
        guard tls != .disable else { return .disable }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch (tls, rootCertificate) {
        case (.verifyFull, _): configuration.certificateVerification = .fullVerification
        case (_, nil): configuration.certificateVerification = .none
        default: configuration.certificateVerification = .noHostnameVerification
        }
        if let rootCertificate {
            configuration.trustRoots = rootCertificate == "system" ? .default : .certificates(try Self.readRootCertificates(rootCertificate))
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw StoreError(.invalidOption, "cannot set up TLS for PostgreSQL at \(location): \(error)", underlying: error)
        }
        return tls == .prefer ? .prefer(context) : .require(context)
    }

    /// The certificates of a PEM file, or an `invalidOption` saying why there are none.
    private static func readRootCertificates(_ path: String) throws -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError(.invalidOption, "sslrootcert: no readable file at \(path)")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw StoreError(.invalidOption, "sslrootcert: \(path) is not a PEM file of certificates: \(error)", underlying: error)
        }
        guard !certificates.isEmpty else { throw StoreError(.invalidOption, "sslrootcert: \(path) holds no certificate") }
        return certificates
    }

    /// The `serverNotTrusted` error for a connection attempt that failed in TLS, or nil when
    /// `error` is not TLS's (the server cannot be reached, is starting up…). Its
    /// `underlyingError` is swift-nio-ssl's error (or postgres-nio's, for a server without TLS).
    func tlsRefusal(_ error: any Error) -> StoreError? {
        guard tls != .disable, socketDirectory == nil else { return nil }
        let client = error as? PSQLError
        if client?.code == .sslUnsupported {
            return StoreError(.serverNotTrusted, "PostgreSQL at \(location) does not accept TLS connections, and sslmode=\(tls.rawValue) requires TLS", underlying: error)
        }
        let cause = client?.underlying ?? error
        if let failure = cause as? NIOSSLExtraError, failure == .failedToValidateHostname {
            return StoreError(.serverNotTrusted, "the TLS certificate of PostgreSQL at \(location) is not for the host \(host) (sslmode=verify-full checks the host name)", underlying: cause)
        }
        guard case NIOSSLError.handshakeFailed(let failure) = cause else { return nil }
        if String(describing: failure).contains("CERTIFICATE_VERIFY_FAILED") {
            return StoreError(.serverNotTrusted, "the TLS certificate of PostgreSQL at \(location) was refused: it does not chain to the root certificate \(rootCertificate ?? "") (sslmode=\(tls.rawValue)), or is not valid now", underlying: cause)
        }
        return StoreError(.serverNotTrusted, "the TLS handshake with PostgreSQL at \(location) failed: \(failure)", underlying: cause)
    }
}
#endif
