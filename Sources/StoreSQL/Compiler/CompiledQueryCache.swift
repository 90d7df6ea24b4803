import Foundation
import StoreCore
#if !STOWAGE_SANITIZER_LOCKS  // the ThreadSanitizer build (.ci/run) uses StoreCore's sanitizer-visible Mutex
import Synchronization
#endif

/// The SQL of recent fetches by their ``QueryShape``: a request of a shape compiled before gets
/// that SQL text back with its own constants bound, without being compiled again (so its
/// statement text is also the one the driver has prepared — SQLite keeps a prepared statement
/// per text and connection).
///
/// One per ``SQLCompiler``, so per store and model: a store's model never changes while it is
/// open. Bounded: past ``capacity`` shapes, the least recently used is dropped. A shape whose
/// compiled SQL binds a value that is not one of its slots is remembered as not cacheable and
/// compiled every time.
///
/// For example:
///
/// ```swift
/// let compiler = SQLCompiler(schema: schema, model: model)
/// var request = StoreFetchRequest(entityName: "Quake")
/// request.predicate = try .format("magnitude > %@", 5.0)
/// _ = try compiler.selectObjects(request, columns: ["t0.Z_PK"])           // compiled
/// request.predicate = try .format("magnitude > %@", 6.5)
/// let query = try compiler.selectObjects(request, columns: ["t0.Z_PK"])   // from the cache
/// // query.sql: SELECT t0.Z_PK FROM ZQUAKE t0 WHERE t0.ZMAGNITUDE > ?1     bindings [6.5]
/// ```
package final class CompiledQueryCache: Sendable {
    /// A compiled statement with, for each of its bindings, the slot that supplies it.
    private struct Template: Sendable {
        let sql: String
        let slotOfBinding: [Int]
        /// How many slots a request of the shape has (checked before binding, though equal
        /// shapes always have as many).
        let slotCount: Int
    }

    private final class Entry {
        /// `nil`: the shape binds something other than its slots, so it is always compiled.
        let template: Template?
        var lastUse: UInt64

        init(_ template: Template?, lastUse: UInt64) {
            self.template = template
            self.lastUse = lastUse
        }
    }

    private struct State {
        var entries: [QueryShape: Entry] = [:]
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    /// How many shapes are kept (0: none, every request is compiled).
    package let capacity: Int
    private let state = Mutex(State())

    package init(capacity: Int = 64) {
        self.capacity = max(0, capacity)
    }

    /// How many requests were answered from the cache and how many were compiled.
    package var statistics: (hits: Int, misses: Int) {
        state.withLock { ($0.hits, $0.misses) }
    }

    /// How many shapes are kept now.
    package var count: Int { state.withLock { $0.entries.count } }

    /// The request's query: from the cache when a request of its shape was compiled before,
    /// else made by `compile` (and kept when it can be reused).
    package func query(
        for request: StoreFetchRequest, statement: QueryShape.Statement, encode: (StoreValue) -> SQLValue,
        compile: () throws -> CompiledQuery
    ) throws -> CompiledQuery {
        guard capacity > 0, let made = QueryShape.make(request, statement: statement, encode: encode) else {
            return try compile()
        }
        let (shape, slots) = made
        let found: Template?? = state.withLock { state in
            state.clock += 1
            guard let entry = state.entries[shape] else {
                state.misses += 1
                return nil
            }
            entry.lastUse = state.clock
            if entry.template != nil { state.hits += 1 } else { state.misses += 1 }
            return .some(entry.template)
        }
        switch found {
        case .some(.some(let template)) where template.slotCount == slots.count:
            return CompiledQuery(sql: template.sql, bindings: template.slotOfBinding.map { slots[$0] })
        case .some:
            return try compile()
        case .none:
            let query = try compile()
            keep(shape, Self.template(of: query, slots: slots))
            return query
        }
    }

    /// The query as a template over `slots`, or `nil` when one of its bindings is no slot's value.
    private static func template(of query: CompiledQuery, slots: [SQLValue]) -> Template? {
        var slotOfBinding: [Int] = []
        slotOfBinding.reserveCapacity(query.bindings.count)
        for binding in query.bindings {
            guard let slot = slots.firstIndex(of: binding) else { return nil }
            slotOfBinding.append(slot)
        }
        return Template(sql: query.sql, slotOfBinding: slotOfBinding, slotCount: slots.count)
    }

    private func keep(_ shape: QueryShape, _ template: Template?) {
        state.withLock { state in
            if state.entries[shape] == nil, state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries.removeValue(forKey: oldest)
            }
            state.clock += 1
            state.entries[shape] = Entry(template, lastUse: state.clock)
        }
    }
}
