import Foundation
import Logging

extension MappingModel {
    /// Says, before a lightweight migration with this mapping changes anything, what it would
    /// drop: each ``likelyEntityRenames`` pair is logged as a warning (``MigrationLog``), and
    /// refused when `options` ask for it (``PersistentStoreOption/refusesLikelyEntityRenames``).
    ///
    /// - Throws: ``MigrationError`` with code `.likelyEntityRename` naming the
    ///   first pair (every pair is in the message).
    package func checkLikelyEntityRenames(
        url: URL?, options: [PersistentStoreOption: StoreValue], logger: Logger = MigrationLog.logger
    ) throws(MigrationError) {
        guard let first = likelyEntityRenames.first else { return }
        // A server's URL may carry a password: name its host and database only.
        let store = url.map { $0.isFileURL ? $0.lastPathComponent : "\($0.host ?? "")\($0.path)" } ?? "in-memory store"
        for rename in likelyEntityRenames { logger.warning("\(store): \(rename)") }
        guard options[.refusesLikelyEntityRenames] == .boolean(true) else { return }
        let others = likelyEntityRenames.dropFirst().map { "\($0.sourceEntityName) → \($0.destinationEntityName)" }
        throw MigrationError(
            .likelyEntityRename, url: url, sourceEntity: first.sourceEntityName, entity: first.destinationEntityName,
            "looks renamed without a renaming identifier (\(first)); the migration was refused and nothing changed"
                + (others.isEmpty ? "" : "; also likely renamed: " + others.joined(separator: ", ")))
    }
}
