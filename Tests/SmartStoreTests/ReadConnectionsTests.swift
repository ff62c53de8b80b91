import Foundation
import Locking
import Testing

@testable import SmartStore

/// Single-statement reads of a file store run on a few plain read-only connections: they see
/// every committed write and schema change, share the load with the pool, and end with the store.
@Suite struct ReadConnectionsTests {
    @Test func plainReadersSeeWritesAndSchemaChanges() throws {
        let directory = TemporaryDirectory()
        let store = try SmartStore(path: directory.path("store.sqlite"))
        try store.registerSoup("items", indexSpecs: [IndexSpec("key", .string)])
        let byKey = QuerySpec.exact(soup: "items", path: "key", key: "a", pageSize: 5)
        #expect(try store.query(byKey).isEmpty)
        try store.upsert(["key": "a", "n": 1], in: "items", externalIdPath: "key")
        #expect(try store.query(byKey).first?["n"] == 1)
        // A new index column changes the soup's SQL and the table: the next read prepares anew.
        try store.alterSoup("items", indexSpecs: [IndexSpec("key", .string), IndexSpec("n", .integer)], reIndexData: true)
        #expect(try store.query(.exact(soup: "items", path: "n", key: 1, pageSize: 5)).count == 1)
        #expect(try store.query(byKey).first?["n"] == 1)
        // Dropped and registered again: the same text now names another table.
        try store.dropSoup("items")
        #expect(throws: SmartStoreError.self) { try store.query(byKey) }
        try store.registerSoup("items", indexSpecs: [IndexSpec("key", .string)])
        #expect(try store.query(byKey).isEmpty)
        try store.upsert(["key": "a", "n": 2], in: "items", externalIdPath: "key")
        #expect(try store.queryJSON(byKey).count > 2)
        #expect(try store.query(byKey).first?["n"] == 2)
    }

    /// The same text before and after the table changed shape: SQLite prepares the cached
    /// statement again, with more (or fewer) columns than GRDB noted when it cached it.
    @Test func aCachedSelectStarSeesTheNewColumns() throws {
        let directory = TemporaryDirectory()
        let store = try SmartStore(path: directory.path("store.sqlite"))
        try store.registerSoup("items", indexSpecs: [IndexSpec("key", .string)])
        try store.upsert(["key": "a", "n": 1, "m": "x"], in: "items", externalIdPath: "key")
        let star = QuerySpec.smart("select * from {items}", pageSize: 10)
        let before = try #require(try store.query(star).first?.arrayValue)
        try store.alterSoup(
            "items", indexSpecs: [IndexSpec("key", .string), IndexSpec("n", .integer), IndexSpec("m", .string)], reIndexData: true)
        let after = try #require(try store.query(star).first?.arrayValue)
        #expect(after.count == before.count + 2)
        #expect(after.contains { $0["key"] == "a" }) // the soup column is still read as an entry
        try store.alterSoup("items", indexSpecs: [IndexSpec("key", .string)], reIndexData: true)
        let fewer = try #require(try store.query(star).first?.arrayValue)
        #expect(fewer.count == before.count && fewer.contains { $0["key"] == "a" })
        #expect(try store.queryJSON(star).count > 2)
        #expect(try store.columnNames(of: star).contains("key") == true)
    }

    @Test func moreReadersThanPlainConnectionsShareThePool() throws {
        let directory = TemporaryDirectory()
        let store = try SmartStore(path: directory.path("store.sqlite"))
        try store.registerSoup("items", indexSpecs: [IndexSpec("key", .string)])
        try store.upsert((0..<200).map { ["key": .string("k\($0)"), "n": .int(Int64($0))] }, in: "items")
        // Threads, not tasks: synchronous reads at the same moment, several times the plain capacity.
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4 * ReadConnections.capacity + 2) { thread in
            for index in 0..<200 {
                let key = (index + thread) % 200
                let found = try? store.query(.exact(soup: "items", path: "key", key: .string("k\(key)"), pageSize: 1))
                if found?.first?["n"] != .int(Int64(key)) { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.current == 0)
    }

    @Test func closingEndsThePlainReaders() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let store = try SmartStore(path: path)
        try store.registerSoup("items", indexSpecs: [IndexSpec("key", .string)])
        try store.upsert(["key": "a"], in: "items")
        #expect(try store.query(.all(soup: "items", pageSize: 5)).count == 1)
        try store.close()
        #expect(throws: (any Error).self) { try store.query(.all(soup: "items", pageSize: 5)) }
        // Everything was checkpointed into the database: the log is gone or empty.
        let log = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
        #expect((log ?? 0) == 0)
    }
}
