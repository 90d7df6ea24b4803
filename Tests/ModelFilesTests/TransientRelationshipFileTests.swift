import Foundation
import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// A model file shaped like Wire's iOS model, whose `missingRecipients` — a
/// `transient="YES" toMany="YES"` relationship of an abstract message entity, with a transient
/// inverse — made its first read fail in SQLite ("AssetClientMessage has no to-many relationship
/// missingRecipients"). On every store type the transient relationships read as empty on objects
/// read back, take values, keep their inverses in step, and are never written.
final class TransientRelationshipFileTests: XCTestCase {
    private static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="AssetClientMessage" representedClassName="ZMAssetClientMessage" parentEntity="OTRMessage" syncable="YES">
                <attribute name="assetId" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Message" representedClassName="ZMMessage" isAbstract="YES" syncable="YES">
                <attribute name="nonce" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <relationship name="sender" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="User" inverseName="messages" inverseEntity="User"/>
            </entity>
            <entity name="OTRMessage" representedClassName="ZMOTRMessage" isAbstract="YES" parentEntity="Message" syncable="YES">
                <relationship name="missedBy" optional="YES" transient="YES" toMany="YES" deletionRule="Nullify" destinationEntity="UserClient" inverseName="lastMissedMessage" inverseEntity="UserClient"/>
                <relationship name="missingRecipients" optional="YES" transient="YES" toMany="YES" deletionRule="Nullify" destinationEntity="UserClient" inverseName="messagesMissingRecipient" inverseEntity="UserClient"/>
            </entity>
            <entity name="User" representedClassName="ZMUser" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="clients" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="UserClient" inverseName="user" inverseEntity="UserClient"/>
                <relationship name="messages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Message" inverseName="sender" inverseEntity="Message"/>
            </entity>
            <entity name="UserClient" representedClassName="UserClient" syncable="YES">
                <attribute name="remoteIdentifier" optional="YES" attributeType="String"/>
                <relationship name="lastMissedMessage" optional="YES" maxCount="1" transient="YES" deletionRule="Nullify" destinationEntity="OTRMessage" inverseName="missedBy" inverseEntity="OTRMessage"/>
                <relationship name="messagesMissingRecipient" optional="YES" transient="YES" toMany="YES" deletionRule="Nullify" destinationEntity="OTRMessage" inverseName="missingRecipients" inverseEntity="OTRMessage"/>
                <relationship name="user" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="User" inverseName="clients" inverseEntity="User"/>
            </entity>
        </model>
        """

    private func model(in directory: TemporaryDirectory) throws -> ManagedObjectModel {
        let folder = directory.url.appendingPathComponent("Messaging.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return try ManagedObjectModel(contentsOf: folder)
    }

    private func identifiers(_ value: Any?) -> Set<String> {
        Set((value as? Set<ManagedObject> ?? []).compactMap { try? $0.value(forKey: "remoteIdentifier") as? String })
    }

    func testTransientToManyOfAWireLikeModelIsReadAndSetOnEveryStore() throws {
        let directory = try TemporaryDirectory()
        for backend in StoreBackend.all {
            let stack = try BackendStack(backend, model: model(in: directory))
            let context = stack.newContext()
            let messageID = try context.performAndWait { () throws -> ManagedObjectID in
                let user = try context.insertNewObject(forEntityName: "User")
                try user.setValue("ada", forKey: "name")
                for identifier in ["phone", "laptop"] {
                    let client = try context.insertNewObject(forEntityName: "UserClient")
                    try client.setValue(identifier, forKey: "remoteIdentifier")
                    try client.setValue(user, forKey: "user")
                }
                let message = try context.insertNewObject(forEntityName: "AssetClientMessage")
                try message.setValue("asset-1", forKey: "assetId")
                try message.setValue(user, forKey: "sender")
                try context.save()
                return message.objectID
            }
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let message = try reader.existingObject(with: messageID)
                // Wire's first read.
                XCTAssertEqual(identifiers(try message.value(forKey: "missingRecipients")), [], "\(backend)")
                let clients = try XCTUnwrap(try (message.value(forKey: "sender") as? ManagedObject)?.value(forKey: "clients") as? Set<ManagedObject>)
                try message.setValue(clients, forKey: "missingRecipients")
                let phone = try XCTUnwrap(clients.first { (try? $0.value(forKey: "remoteIdentifier") as? String) == "phone" })
                try phone.setValue(message, forKey: "lastMissedMessage")
                XCTAssertEqual(identifiers(try message.value(forKey: "missingRecipients")), ["phone", "laptop"], "\(backend)")
                XCTAssertEqual(identifiers(try message.value(forKey: "missedBy")), ["phone"], "\(backend): the inverse of a transient to-one")
                XCTAssertEqual((try phone.value(forKey: "messagesMissingRecipient") as? Set<ManagedObject>)?.first, message, "\(backend)")
                try reader.save()
                XCTAssertEqual(identifiers(try message.value(forKey: "missingRecipients")), ["phone", "laptop"], "\(backend)")
            }
            try stack.reopen()
            let again = stack.newContext()
            try again.performAndWait {
                let message = try again.existingObject(with: messageID)
                XCTAssertEqual(identifiers(try message.value(forKey: "missingRecipients")), [], "\(backend): never written")
                XCTAssertEqual(identifiers(try message.value(forKey: "missedBy")), [], "\(backend)")
                XCTAssertEqual(try (message.value(forKey: "sender") as? ManagedObject)?.value(forKey: "name") as? String, "ada", "\(backend)")
            }
        }
    }

    func testTransientRelationshipsHaveNoColumnsOrJoinTablesInSQLite() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Messaging.sqlite")
        let container = try TestStack.sqliteContainer(model(in: directory), at: url)
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var names: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") { names.append($0.string(at: 0) ?? "") }
        for table in ["ZMESSAGE", "ZUSERCLIENT"] {
            try connection.query("SELECT name FROM pragma_table_info('\(table)')") { names.append($0.string(at: 0) ?? "") }
        }
        XCTAssertTrue(names.contains("ZSENDER"), "\(names)")
        for name in names {
            XCTAssertFalse(name.contains("MISSING") || name.contains("MISSED"), "\(name) stores a transient relationship")
        }
    }
}
