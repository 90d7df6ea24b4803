import Foundation

extension PersistentStoreType {
    /// What asking for this type throws when it is one of Stowage's own store types that this
    /// build leaves out — the PostgreSQL store, without the `Postgres` package trait — or `nil`
    /// when it is not (the caller then reports an unregistered type as usual).
    ///
    /// StoreCore is compiled with the package's traits too, so it knows whether the trait is on;
    /// with it, an unregistered `.postgres` is an ordinary `unknownStoreType` (a program that
    /// imports `StoreCore` and the backends itself has not registered `PostgresStore`).
    ///
    /// For example:
    ///
    /// ```swift
    /// if let error = PersistentStoreType.postgres.unavailableInThisBuild(url: url) { throw error }
    /// ```
    package func unavailableInThisBuild(url: URL?) -> StoreError? {
        #if Postgres
        return nil
        #else
        guard self == .postgres else { return nil }
        return StoreError(
            .storeTypeUnavailable, url: url,
            """
            the PostgreSQL store is not in this build of Stowage: it comes with the package trait "Postgres", \
            which is off by default. Turn it on where your Package.swift depends on Stowage, \
            for example .package(path: "../stowage", traits: ["Postgres"]) \
            (or traits: ["Postgres"] after a url/from requirement), \
            or build Stowage's own checkout with --traits Postgres (README, "PostgreSQL")
            """)
        #endif
    }
}
