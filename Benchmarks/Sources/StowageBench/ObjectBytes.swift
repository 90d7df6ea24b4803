import Foundation
import GRDBSQLite
import Stowage

/// `stowage-bench --object-bytes`: the memory one fetched object costs, stage by stage (issue
/// 38: "the bytes one fetched object costs — object, snapshot, registration, row cache").
///
/// Each stage runs in a child process of its own (`--object-bytes-stage NAME`): it builds the
/// 100,000-tremor store, opens it, returns the heap's free pages to the system
/// (`malloc_trim`), then fetches every tremor the stage's way and keeps the result; the growth
/// of its resident memory divided by the row count is the stage's bytes per object. Each stage
/// holds what the one before it held and more, so the differences between rows are what each
/// layer adds.
enum ObjectBytes {
    struct Stage: Sendable {
        let name: String
        let what: String
        let run: @Sendable (Fixtures) throws -> Any
    }

    static let stages: [Stage] = [
        Stage(name: "raw-structs", what: "raw SQLite rows read into structs (the baseline)") { fixtures in
            let database = try RawDatabase.openWAL(path: fixtures.tremorDatabase())
            let statement = try database.prepare(RawSQLiteBaselines.selectSQL)
            var tremors: [RawSQLiteBaselines.Tremor] = []
            while sqlite3_step(statement.handle) == SQLITE_ROW { tremors.append(RawSQLiteBaselines.read(statement)) }
            return tremors
        },
        Stage(name: "object-ids", what: "FetchRequest<ManagedObjectID>: the IDs alone") { fixtures in
            try fetch(fixtures) { context in try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Tremor")) }
        },
        Stage(name: "faults", what: "objects as faults without values (includesPropertyValues = false): object and registration") { fixtures in
            try fetchTremors(fixtures) { $0.includesPropertyValues = false }
        },
        Stage(name: "faults-with-values", what: "objects as faults, values fetched (the default): and the snapshot each holds") { fixtures in
            try fetchTremors(fixtures) { _ in }
        },
        Stage(name: "objects", what: "objects with their values (returnsObjectsAsFaults = false)") { fixtures in
            try fetchTremors(fixtures) { $0.returnsObjectsAsFaults = false }
        },
        Stage(name: "objects-read", what: "and every attribute read once (the fetch-100k workload)") { fixtures in
            try fetch(fixtures) { context in
                var request = FetchRequest<Tremor>()
                request.returnsObjectsAsFaults = false
                let tremors = try context.fetch(request)
                var checksum = TremorChecksum()
                for tremor in tremors { SQLiteStoreWorkloads.add(tremor, to: &checksum) }
                return tremors
            }
        },
    ]

    static let marker = "object_bytes="

    /// Every tremor, fetched with the request `configure` sets up.
    private static func fetchTremors(_ fixtures: Fixtures, _ configure: @escaping (inout FetchRequest<Tremor>) -> Void) throws -> Any {
        try fetch(fixtures) { context in
            var request = FetchRequest<Tremor>()
            configure(&request)
            return try context.fetch(request)
        }
    }

    /// Opens the tremor store, trims the heap, measures `body`'s growth; returns what it made,
    /// with the context that owns it (kept alive with the result).
    private static func fetch(_ fixtures: Fixtures, _ body: @escaping (ManagedObjectContext) throws -> Any) throws -> Any {
        let container = try SQLiteStoreWorkloads.makeContainer(model: fixtures.tremorModel(indexed: false), url: fixtures.tremorStore(indexed: false))
        let context = SQLiteStoreWorkloads.makeContext(container)
        // Warm the statement caches with a one-row fetch, so they are not counted.
        try context.performAndWait {
            var first = FetchRequest<Tremor>()
            first.fetchLimit = 1
            _ = try context.fetch(first)
            context.reset()
        }
        return try measured { (container, context, try context.performAndWait { try body(context) }) }
    }

    /// The resident memory `body` adds, after returning the heap's free pages.
    private static func measured(_ body: () throws -> Any) throws -> Any {
        trimHeap()
        let before = residentBytes()
        let result = try body()
        print("\(marker)\(residentBytes() - before)")
        return result
    }

    /// In a child: runs the stage named `name` and prints its growth in bytes.
    static func runStage(_ name: String) throws {
        guard let stage = stages.first(where: { $0.name == name }) else { fail("no object-bytes stage named \(name)") }
        let fixtures = Fixtures()
        if stage.name == "raw-structs" {
            _ = try fixtures.tremorDatabase()
            withExtendedLifetime(try measured { try stage.run(fixtures) }) {}
        } else {
            withExtendedLifetime(try stage.run(fixtures)) {}
        }
    }

    /// In the parent: every stage in a child of its own; prints one row per stage.
    static func report() throws {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { fail("cannot find this executable") }
        print("bytes per fetched object, \(Catalog.objectCount) tremors (resident growth / rows):")
        var previous: Double?
        for stage in stages {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--object-bytes-stage", stage.name]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix(marker) }),
                let bytes = Double(line.dropFirst(marker.count))
            else { fail("stage \(stage.name) failed: \(output)") }
            let perObject = bytes / Double(Catalog.objectCount)
            let added = previous.map { stage.name == "object-ids" ? "" : "+\(Int((perObject - $0).rounded()))" } ?? ""
            let name = stage.name.padding(toLength: 20, withPad: " ", startingAt: 0)
            let size = "\(Int(perObject.rounded())) B".padding(toLength: 8, withPad: " ", startingAt: 0)
            print("  \(name) \(size) \(added.padding(toLength: 6, withPad: " ", startingAt: 0)) \(stage.what)")
            if stage.name != "raw-structs" { previous = perObject }
        }
    }

    private static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// glibc's `malloc_trim(0)`: free heap pages go back to the system, so the growth that follows is the stage's.
    private static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
