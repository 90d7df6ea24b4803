import Foundation
import StoreCore

extension SyncSession {
    /// Reads this client's state, making it on the first sync: a client identifier, and the
    /// server store it syncs with (a local store syncs with one server store).
    func setUp() throws {
        try step(.setUp)
        try local.performAndWait {
            let state = try SyncStateRow.fetch(SyncStateRow.localKey, in: self.local)
            if let known = try state.serverStoreID, known != self.serverStoreID {
                throw SyncError(.serverMismatch, "this local store syncs with server store \(known), not \(self.serverStoreID)")
            }
            if try state.clientID == nil {
                try state.set("clientID", UUID().uuidString)
                try state.set("serverStoreID", self.serverStoreID)
            }
            self.clientID = try state.clientID ?? ""
            self.pulledTransaction = try state.pulledTransaction
            try Self.save(self.local, side: "local")
        }
    }
}
