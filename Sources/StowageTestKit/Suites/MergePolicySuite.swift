import Foundation
import StoreCore
import XCTest

/// Optimistic locking: two contexts read the same post, the second changes it and saves, then
/// the first saves its own change under each merge policy — with the result read back after a
/// reopen; and conflicts among many deleted posts, named exactly.
struct MergePolicySuite {
    let kit: StoreTestKit

    private struct Outcome {
        var title: String?
        var views: Int64
        var image: Data?
        var error: (any Error)?
    }

    private func saveInConflict(policy: MergePolicy, mine: @escaping (Post) -> Void) throws -> Outcome {
        let stack = try kit.makeStack(model: BlogModel.make())
        let first = stack.newContext(), second = stack.newContext()
        let id = try first.performAndWait { () throws -> ManagedObjectID in
            let post = try Post(context: first)
            post.title = "Base"
            post.views = 5
            try first.save()
            return post.objectID
        }
        try second.performAndWait {
            let post = try XCTUnwrap(second.existingObject(with: id) as? Post)
            post.views = 10
            post.title = "Theirs"
            try second.save()
        }
        var failure: (any Error)?
        try first.performAndWait {
            let post = try XCTUnwrap(first.existingObject(with: id) as? Post)
            mine(post)
            first.mergePolicy = policy
            do { try first.save() } catch { failure = error }
        }
        try stack.reopen()
        let reader = stack.newContext()
        return try reader.performAndWait {
            let post = try XCTUnwrap(reader.existingObject(with: id) as? Post)
            return Outcome(title: post.title, views: post.views, image: post.image, error: failure)
        }
    }

    /// A context deletes a thousand posts it read; meanwhile another changed three of them and
    /// deleted two. The save is refused naming exactly those five (stores may delete many rows
    /// per statement: the posts deleted alongside are not named), and nothing of it is written.
    private func checkConflictsInsideALargeDeletion() throws {
        let stack = try kit.makeStack(model: BlogModel.make())
        let mine = stack.newContext(), theirs = stack.newContext()
        let ids = try mine.performAndWait { () throws -> [ManagedObjectID] in
            let posts = try (0..<1_000).map { index in
                let post = try Post(context: mine)
                post.title = "post \(index)"
                return post
            }
            try mine.save()
            return posts.map(\.objectID)
        }
        let changed = [ids[0], ids[511], ids[999]], deleted = [ids[1], ids[700]]
        try mine.performAndWait {
            // Read before the other save.
            let posts = try mine.fetch(FetchRequest<Post>())
            try theirs.performAndWait {
                for id in changed { try XCTUnwrap(theirs.existingObject(with: id) as? Post).title = "theirs" }
                for id in deleted { theirs.delete(try theirs.existingObject(with: id)) }
                try theirs.save()
            }
            for post in posts { mine.delete(post) }
            XCTAssertThrowsError(try mine.save(), "\(kit)") { error in
                let named = Set((error as? MergeConflictError)?.conflicts.map(\.objectID) ?? [])
                XCTAssertEqual(named, Set(changed + deleted), "\(kit): exactly the posts changed or deleted elsewhere (\(error))")
            }
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let posts = try reader.fetch(FetchRequest<Post>())
            XCTAssertEqual(posts.count, 998, "\(kit): nothing of the refused save was deleted")
            XCTAssertEqual(posts.filter { $0.title == "theirs" }.count, 3, "\(kit)")
        }
    }

    func run() {
        kit.check("conflicts inside a large deletion") { try checkConflictsInsideALargeDeletion() }
        kit.check("merge policy error") {
            let outcome = try saveInConflict(policy: .error) { $0.title = "Mine" }
            let conflict = (outcome.error as? MergeConflictError)?.conflicts.first
            XCTAssertNotNil(conflict, "\(kit): the second save is refused with the conflict (\(String(describing: outcome.error)))")
            XCTAssertEqual(outcome.title, "Theirs", "\(kit): the store keeps the other save")
        }
        kit.check("merge policy object trump") {
            let outcome = try saveInConflict(policy: .mergeByPropertyObjectTrump) { $0.title = "Mine" }
            XCTAssertNil(outcome.error, "\(kit)")
            XCTAssertEqual(outcome.title, "Mine", "\(kit): the context's change wins")
            XCTAssertEqual(outcome.views, 10, "\(kit): the other save's change to another property stays")
        }
        kit.check("merge policy store trump") {
            let outcome = try saveInConflict(policy: .mergeByPropertyStoreTrump) { $0.title = "Mine"; $0.image = Data([9]) }
            XCTAssertNil(outcome.error, "\(kit)")
            XCTAssertEqual(outcome.title, "Theirs", "\(kit): the store wins where both changed")
            XCTAssertEqual(outcome.views, 10, "\(kit)")
            XCTAssertEqual(outcome.image, Data([9]), "\(kit): the context's change elsewhere stays")
        }
        kit.check("merge policy overwrite") {
            let outcome = try saveInConflict(policy: .overwrite) { $0.title = "Mine" }
            XCTAssertNil(outcome.error, "\(kit)")
            XCTAssertEqual(outcome.title, "Mine", "\(kit)")
        }
        kit.check("merge policy rollback") {
            let outcome = try saveInConflict(policy: .rollback) { $0.title = "Mine" }
            XCTAssertNil(outcome.error, "\(kit)")
            XCTAssertEqual(outcome.title, "Theirs", "\(kit): the store's values win")
            XCTAssertEqual(outcome.views, 10, "\(kit)")
        }
    }
}
