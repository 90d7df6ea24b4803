import Foundation
import StoreCore

/// A messaging model with transient relationships, after the one in Wire's iOS app that first
/// showed them missing from the SQL stores: a `Message` (and its sub-entity
/// `AssetClientMessage`) has a stored `sender`, a transient to-many `missingRecipients` (a
/// many-to-many with `UserClient.messagesMissingRecipient`, also transient), a transient to-one
/// `previewer` (inverse `UserClient.previewedMessages`, a transient to-many) and a transient
/// attribute `draft`; a `UserClient` has a transient one-to-one `pairedClient` with itself.
///
/// Objects are plain `ManagedObject`s, read and set by key.
///
/// For example:
///
/// ```swift
/// let stack = try kit.makeStack(model: MessagingModel.make())
/// ```
public enum MessagingModel {
    /// A fresh model (each store needs its own instance).
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Message") {
                .attribute("text", .string)
                .attribute("draft", .string, transient: true)
                .toOne("sender", destination: "UserClient", inverse: "sentMessages")
                .toMany("missingRecipients", destination: "UserClient", inverse: "messagesMissingRecipient", transient: true)
                .toOne("previewer", destination: "UserClient", inverse: "previewedMessages", transient: true)
            }
            EntityDescription("AssetClientMessage", parent: "Message") {
                .attribute("assetName", .string)
            }
            EntityDescription("UserClient") {
                .attribute("label", .string)
                .toMany("sentMessages", destination: "Message", inverse: "sender")
                .toMany("messagesMissingRecipient", destination: "Message", inverse: "missingRecipients", transient: true)
                .toMany("previewedMessages", destination: "Message", inverse: "previewer", transient: true)
                .toOne("pairedClient", destination: "UserClient", inverse: "pairedClient", transient: true)
            }
        }
    }
}
