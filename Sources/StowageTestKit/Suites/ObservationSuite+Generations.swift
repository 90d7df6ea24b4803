import Foundation
import StoreCore
import XCTest

extension ObservationSuite {
    /// A context pinned to a query generation keeps reading the state it pinned — fetches,
    /// counts and faults — while another context saves, shares it through its token, and reads
    /// the new state once it advances.
    func testPinnedGenerationReadsOneCommittedState() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let writer = stack.newContext()
            let first = try writer.performAndWait {
                let post = try Post(context: writer)
                post.title = "a"
                post.views = 1
                try writer.save()
                return post.objectID
            }
            let reader = stack.newContext()
            let token = try reader.performAndWait {
                XCTAssertNil(reader.queryGenerationToken, "\(backend): unpinned by default")
                try reader.setQueryGenerationFrom(.current)
                XCTAssertEqual(try reader.count(for: FetchRequest<Post>()), 1, "\(backend)")
                return try XCTUnwrap(reader.queryGenerationToken, "\(backend)")
            }
            let second = try writer.performAndWait {
                (try writer.existingObject(with: first) as? Post)?.views = 5
                let post = try Post(context: writer)
                post.title = "b"
                try writer.save()
                return post.objectID
            }
            try reader.performAndWait {
                XCTAssertEqual(try reader.count(for: FetchRequest<Post>()), 1, "\(backend): the pinned state has one post")
                var request = FetchRequest<Post>()
                request.returnsObjectsAsFaults = true
                request.includesPropertyValues = false
                let posts = try reader.fetch(request)
                XCTAssertEqual(posts.map(\.views), [1], "\(backend): a fault fired while pinned reads the pinned values")
                reader.shouldDeleteInaccessibleFaults = false
                XCTAssertThrowsError(try reader.existingObject(with: second), "\(backend): the later insert is not in the pinned state")
            }
            let sharer = stack.newContext()
            try sharer.performAndWait {
                try sharer.setQueryGenerationFrom(token)
                XCTAssertEqual(try sharer.count(for: FetchRequest<Post>()), 1, "\(backend): the token pins the same state elsewhere")
                try sharer.setQueryGenerationFrom(.unpinned)
                XCTAssertNil(sharer.queryGenerationToken, "\(backend)")
                XCTAssertEqual(try sharer.count(for: FetchRequest<Post>()), 2, "\(backend): unpinned reads the latest")
            }
            try reader.performAndWait {
                try reader.setQueryGenerationFrom(.current)
                XCTAssertNotEqual(reader.queryGenerationToken, token, "\(backend): a new generation")
                XCTAssertEqual(try reader.count(for: FetchRequest<Post>()), 2, "\(backend): after advancing")
                reader.refreshAllObjects()
                XCTAssertEqual((try reader.existingObject(with: first) as? Post)?.views, 5, "\(backend)")
                // Saving moves a pinned context to the latest state too.
                try writer.performAndWait {
                    let post = try Post(context: writer)
                    post.title = "c"
                    try writer.save()
                }
                XCTAssertEqual(try reader.count(for: FetchRequest<Post>()), 2, "\(backend): still pinned")
                let own = try Post(context: reader)
                own.title = "d"
                try reader.save()
                XCTAssertEqual(try reader.count(for: FetchRequest<Post>()), 4, "\(backend): its own save advanced it")
                XCTAssertNotNil(reader.queryGenerationToken, "\(backend): and it stays pinned")
            }
        }
    }
}
