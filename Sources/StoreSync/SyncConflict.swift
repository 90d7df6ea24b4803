import Foundation
import StoreCore

/// An attribute changed both on this client (not yet pushed) and on the server (by another
/// client, since this one last pulled), with different values.
///
/// By default the push writes the local value: server order decides, and the push comes last.
/// Set ``SyncEngine/Options/conflictResolver`` to decide otherwise.
///
/// For example:
///
/// ```swift
/// var options = SyncEngine.Options()
/// options.conflictResolver = { conflict in
///     conflict.key == "title" ? .keepServer : .keepLocal
/// }
/// ```
public struct SyncConflict: Sendable, Hashable {
    /// What to write to the server (and so, after the pull, everywhere).
    public enum Resolution: Sendable, Hashable {
        /// This client's value (the default).
        case keepLocal
        /// The value the server holds.
        case keepServer
        /// Another value, for example a merge of both.
        case use(StoreValue)
    }

    /// The object's entity.
    public let entityName: String
    /// The object's global identity.
    public let globalID: String
    /// The attribute.
    public let key: String
    /// The value this client pushes.
    public let localValue: StoreValue
    /// The value the server holds.
    public let serverValue: StoreValue
}
