import Foundation
import StoreCore
import XCTest

/// Transient relationships and attributes (``MessagingModel``): held by the objects, never
/// written, readable and settable on objects read back from the store, their inverses kept in
/// step, and kept across faulting as Core Data keeps them — a refresh that merges changes leaves
/// them alone, one that turns the object into a fault disposes of them (see
/// ``StoreTestKit/checkTransientProperties()``).
struct TransientPropertySuite {
    let kit: StoreTestKit

    func run() {
        kit.check("transient relationships are held in memory and never written") { try neverWritten() }
        kit.check("transient relationships of objects read back from the store") { try readBack() }
        kit.check("transient relationships across faulting and refreshing") { try acrossFaulting() }
        kit.check("transient relationships and deletion") { try deletion() }
    }

    /// Three clients `a`, `b`, `c` and an asset message from `a`, saved; their IDs by label
    /// (`"message"` for the message).
    private func saveClientsAndMessage(in stack: StoreTestStack) throws -> [String: ManagedObjectID] {
        let context = stack.newContext()
        return try context.performAndWait {
            var ids: [String: ManagedObject] = [:]
            for label in ["a", "b", "c"] {
                let client = try context.insertNewObject(forEntityName: "UserClient")
                try client.setValue(label, forKey: "label")
                ids[label] = client
            }
            let message = try context.insertNewObject(forEntityName: "AssetClientMessage")
            try message.setValue("hello", forKey: "text")
            try message.setValue("photo.jpg", forKey: "assetName")
            try message.setValue(ids["a"], forKey: "sender")
            ids["message"] = message
            try context.save()
            return ids.mapValues(\.objectID)
        }
    }

    private func labels(_ value: Any?) -> Set<String> {
        Set((value as? Set<ManagedObject> ?? []).compactMap { try? $0.value(forKey: "label") as? String })
    }

    private func label(_ value: Any?) throws -> String? {
        try (value as? ManagedObject)?.value(forKey: "label") as? String
    }

    private func neverWritten() throws {
        let stack = try kit.makeStack(model: MessagingModel.make())
        let context = stack.newContext()
        let messageID = try context.performAndWait { () throws -> ManagedObjectID in
            let clients = try ["a", "b", "c"].map { label in
                let client = try context.insertNewObject(forEntityName: "UserClient")
                try client.setValue(label, forKey: "label")
                return client
            }
            let message = try context.insertNewObject(forEntityName: "AssetClientMessage")
            try message.setValue("hello", forKey: "text")
            try message.setValue(clients[0], forKey: "sender")
            try message.setValue(Set([clients[1], clients[2]]), forKey: "missingRecipients")
            try message.setValue(clients[1], forKey: "previewer")
            try message.setValue("unsent", forKey: "draft")
            try clients[0].setValue(clients[2], forKey: "pairedClient")
            XCTAssertEqual((try clients[1].value(forKey: "messagesMissingRecipient") as? Set<ManagedObject>)?.first, message, "\(kit): the inverse of a transient to-many is set")
            XCTAssertEqual((try clients[1].value(forKey: "previewedMessages") as? Set<ManagedObject>)?.first, message, "\(kit): the inverse of a transient to-one is set")
            XCTAssertEqual(try label(try clients[2].value(forKey: "pairedClient")), "a", "\(kit): a transient one-to-one sets its inverse")
            try context.save()
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b", "c"], "\(kit): a save keeps transient values in memory")
            XCTAssertEqual(try label(try message.value(forKey: "previewer")), "b", "\(kit)")
            XCTAssertEqual(try message.value(forKey: "draft") as? String, "unsent", "\(kit)")
            return message.objectID
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let message = try reader.existingObject(with: messageID)
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), [], "\(kit): a transient to-many is not written")
            XCTAssertNil(try message.value(forKey: "previewer"), "\(kit): a transient to-one is not written")
            XCTAssertNil(try message.value(forKey: "draft"), "\(kit): a transient attribute is not written")
            XCTAssertEqual(try label(try message.value(forKey: "sender")), "a", "\(kit): stored relationships beside them are")
            let clients = try reader.fetch(FetchRequest<ManagedObject>(entityName: "UserClient"))
            XCTAssertEqual(clients.count, 3, "\(kit)")
            for client in clients {
                XCTAssertEqual((try client.value(forKey: "messagesMissingRecipient") as? Set<ManagedObject>)?.count, 0, "\(kit)")
                XCTAssertEqual((try client.value(forKey: "previewedMessages") as? Set<ManagedObject>)?.count, 0, "\(kit)")
                XCTAssertNil(try client.value(forKey: "pairedClient"), "\(kit)")
            }
        }
    }

    private func readBack() throws {
        let stack = try kit.makeStack(model: MessagingModel.make())
        let ids = try saveClientsAndMessage(in: stack)
        try stack.reopen()
        let context = stack.newContext()
        try context.performAndWait {
            // The first read of a transient to-many of a fetched object (Wire's model failed here).
            let messages = try context.fetch(FetchRequest<ManagedObject>(entityName: "Message"))
            XCTAssertEqual(messages.count, 1, "\(kit)")
            let message = try XCTUnwrap(messages.first)
            XCTAssertEqual(message.entity.name, "AssetClientMessage", "\(kit)")
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), [], "\(kit)")
            XCTAssertFalse(message.hasFault(forRelationshipNamed: "missingRecipients"), "\(kit): a transient to-many has nothing to load")
            let b = try context.existingObject(with: XCTUnwrap(ids["b"]))
            let c = try context.existingObject(with: XCTUnwrap(ids["c"]))
            try message.add(b, toRelationship: "missingRecipients")
            try message.setValue(c, forKey: "previewer")
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b"], "\(kit)")
            XCTAssertEqual((try b.value(forKey: "messagesMissingRecipient") as? Set<ManagedObject>)?.first, message, "\(kit): the inverse follows")
            XCTAssertEqual((try c.value(forKey: "previewedMessages") as? Set<ManagedObject>)?.first, message, "\(kit)")
            try context.save()
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b"], "\(kit)")

            // Prefetching a transient relationship reads nothing and fails nothing.
            var request = FetchRequest<ManagedObject>(entityName: "Message")
            request.relationshipKeyPathsForPrefetching = ["missingRecipients", "previewer.sentMessages", "sender"]
            XCTAssertEqual(try context.fetch(request).count, 1, "\(kit): prefetching through a transient relationship")
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let message = try reader.existingObject(with: XCTUnwrap(ids["message"]))
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), [], "\(kit): values set on a read object are not written either")
            XCTAssertNil(try message.value(forKey: "previewer"), "\(kit)")
        }
    }

    private func acrossFaulting() throws {
        let stack = try kit.makeStack(model: MessagingModel.make())
        let ids = try saveClientsAndMessage(in: stack)
        let context = stack.newContext(), other = stack.newContext()
        try context.performAndWait {
            let message = try context.existingObject(with: XCTUnwrap(ids["message"]))
            let b = try context.existingObject(with: XCTUnwrap(ids["b"]))
            let c = try context.existingObject(with: XCTUnwrap(ids["c"]))
            try message.setValue(Set([b]), forKey: "missingRecipients")
            try message.setValue(c, forKey: "previewer")
            try message.setValue("unsent", forKey: "draft")

            // Core Data: refresh(_:mergeChanges: true) "doesn't affect any transient properties".
            context.refresh(message, mergeChanges: true)
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b"], "\(kit): kept by a refresh that merges")
            XCTAssertEqual(try label(try message.value(forKey: "previewer")), "c", "\(kit)")
            XCTAssertEqual(try message.value(forKey: "draft") as? String, "unsent", "\(kit)")
        }
        try other.performAndWait {
            let message = try other.existingObject(with: XCTUnwrap(ids["message"]))
            try message.setValue("edited elsewhere", forKey: "text")
            try other.save()
        }
        try context.performAndWait {
            let message = try context.existingObject(with: XCTUnwrap(ids["message"]))
            context.refreshAllObjects()
            XCTAssertEqual(try message.value(forKey: "text") as? String, "edited elsewhere", "\(kit): the stored values are read again")
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b"], "\(kit): the transient ones stay")
            XCTAssertEqual(try label(try message.value(forKey: "previewer")), "c", "\(kit)")
            XCTAssertEqual(try message.value(forKey: "draft") as? String, "unsent", "\(kit)")

            try message.setValue("mine", forKey: "text")
            context.refresh(message, mergeChanges: true)
            XCTAssertEqual(try message.value(forKey: "text") as? String, "mine", "\(kit)")
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b"], "\(kit): kept beside unsaved changes")
            try context.save()
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b"], "\(kit)")

            // Core Data: with mergeChanges false "the object disposes the value of transient properties".
            context.refresh(message, mergeChanges: false)
            XCTAssertTrue(message.isFault, "\(kit)")
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), [], "\(kit): disposed when the object becomes a fault")
            XCTAssertNil(try message.value(forKey: "previewer"), "\(kit)")
            XCTAssertNil(try message.value(forKey: "draft"), "\(kit)")
            XCTAssertEqual(try message.value(forKey: "text") as? String, "mine", "\(kit)")
            let b = try context.existingObject(with: XCTUnwrap(ids["b"]))
            try message.setValue(Set([b]), forKey: "missingRecipients")
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["b"], "\(kit): set again after the fault fired")
            try context.save()
        }
    }

    private func deletion() throws {
        let stack = try kit.makeStack(model: MessagingModel.make())
        let ids = try saveClientsAndMessage(in: stack)
        let context = stack.newContext()
        try context.performAndWait {
            let message = try context.existingObject(with: XCTUnwrap(ids["message"]))
            let b = try context.existingObject(with: XCTUnwrap(ids["b"]))
            let c = try context.existingObject(with: XCTUnwrap(ids["c"]))
            try message.setValue(Set([b, c]), forKey: "missingRecipients")
            try message.setValue(b, forKey: "previewer")
            context.delete(b)
            try context.save()
            XCTAssertEqual(labels(try message.value(forKey: "missingRecipients")), ["c"], "\(kit): the delete rule nullifies a transient relationship")
            XCTAssertNil(try message.value(forKey: "previewer"), "\(kit)")
            context.delete(message)
            try context.save()
            XCTAssertEqual((try c.value(forKey: "messagesMissingRecipient") as? Set<ManagedObject>)?.count, 0, "\(kit): and the inverse of a deleted object's")
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            XCTAssertEqual(try reader.fetch(FetchRequest<ManagedObject>(entityName: "UserClient")).count, 2, "\(kit)")
            XCTAssertEqual(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Message")).count, 0, "\(kit)")
        }
    }
}
