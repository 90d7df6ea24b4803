import Logging

/// What migrations log through swift-log, with the label `stowage.migration`: one `warning`
/// line per likely entity rename (``LikelyEntityRename``) of a lightweight migration, naming the
/// store, whether or not the migration goes on.
///
/// For example, a store whose model renamed `Person` to `Human` without a renaming identifier logs:
///
/// ```
/// warning stowage.migration : People.sqlite: Person was removed and Human added with the same attributes and relationships: …
/// ```
enum MigrationLog {
    static let logger = Logger(label: "stowage.migration")
}
