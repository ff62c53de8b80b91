import FastJSON
import Foundation
import Testing

@testable import SmartStore

/// The `async` forms of the entry, query and ingest methods: same results and errors as the
/// synchronous ones, on a file store (connection pool) and in memory, and not interrupted by
/// cancelling the calling task.
@Suite struct AsyncStoreTests {
    static func stores(_ directory: TemporaryDirectory) throws -> [SmartStore] {
        let stores = [try SmartStore(path: directory.path("async.sqlite")), try SmartStore()]
        for store in stores {
            try store.registerSoup(
                "items", indexSpecs: [IndexSpec("key", .string), IndexSpec("n", .integer), IndexSpec("note", .fullText)])
        }
        return stores
    }

    @Test func everyAsyncFormMatchesTheSynchronousOne() async throws {
        let directory = TemporaryDirectory()
        for store in try Self.stores(directory) {
            let one = try await store.create(["key": "a", "n": 1, "note": "first apple"], in: "items")
            let many = try await store.create([["key": "b", "n": 2], ["key": "c", "n": 3]], in: "items")
            #expect(one["_soupEntryId"] != nil && many.count == 2)
            let upserted = try await store.upsert(["key": "b", "n": 20], in: "items", externalIdPath: "key")
            #expect(upserted["_soupEntryId"] == many[0]["_soupEntryId"])
            _ = try await store.upsert([["key": "d", "n": 4]], in: "items", externalIdPath: "key")
            let cId = many[1]["_soupEntryId"]?.int64Value ?? -1
            _ = try await store.update(["key": "c", "n": 30], id: cId, in: "items")
            #expect(try await store.retrieve([cId], from: "items").first?["n"] == 30)
            #expect(try await store.lookupSoupEntryId(soup: "items", path: "key", value: "d") != nil)

            let byN = QuerySpec.range(soup: "items", path: "n", begin: 2, end: 100, orderPath: "n", order: .descending, pageSize: 10)
            let asyncRows = try await store.query(byN)
            #expect(asyncRows.compactMap { $0["key"]?.stringValue } == ["c", "b", "d"])
            #expect(try JSONValue(parsing: try await store.queryJSON(byN)) == .array(asyncRows))
            #expect(try await store.count(.smart("select {items:key} from {items} where {items:n} > ?", pageSize: 1), arguments: [3]) == 3)

            #expect(try await store.setField("flag", to: true, entryIds: [cId], in: "items") == 1)
            #expect(try await store.setField("flag", values: [cId: false], in: "items") == 1)
            #expect(try await store.retrieve([cId], from: "items").first?["flag"] == false)

            let page = Array(#"{"records":[{"key":"e","n":5},{"key":"a","n":10}]}"#.utf8)
            let ingested = try await store.ingestPage(page, into: "items", idPath: "key", timestampPath: nil)
            #expect(ingested.received == 2 && ingested.written == 2)
            #expect(try await store.count(.all(soup: "items", pageSize: 1)) == 5)

            #expect(try await store.deleteByQuery(.exact(soup: "items", path: "key", key: "e", pageSize: 10), from: "items") == 1)
            try await store.delete([cId], from: "items")
            let keys = try await store.query(.all(soup: "items", orderPath: "key", pageSize: 10)).compactMap { $0["key"]?.stringValue }
            #expect(keys == ["a", "b", "d"])
        }
    }

    @Test func asyncFormsThrowTheSameErrors() async throws {
        let directory = TemporaryDirectory()
        for store in try Self.stores(directory) {
            await #expect(throws: SmartStoreError.unknownSoup("nope")) { try await store.create(["key": "x"], in: "nope") }
            await #expect(throws: SmartStoreError.unknownSoup("nope")) { try await store.retrieve([1], from: "nope") }
            await #expect(throws: SmartStoreError.self) { try await store.query(.smart("select {nope:key} from {nope}", pageSize: 1)) }
            await #expect(throws: SmartStoreError.self) {
                try await store.ingestPage(Array("{not json".utf8), into: "items", idPath: "key")
            }
            await #expect(throws: SmartStoreError.entryNotFound(soup: "items", id: 999)) {
                try await store.update(["key": "x"], id: 999, in: "items")
            }
            // A failed transaction writes nothing.
            await #expect(throws: SmartStoreError.self) {
                try await store.upsert([["key": "ok"], ["n": 1]], in: "items", externalIdPath: "key")
            }
            #expect(try await store.count(.all(soup: "items", pageSize: 1)) == 0)
        }
    }

    /// A sync records what the server did even when its task is cancelled: the store's async
    /// writes complete in a cancelled task.
    @Test func cancellingTheCallerDoesNotInterruptAWrite() async throws {
        let directory = TemporaryDirectory()
        for store in try Self.stores(directory) {
            let task = Task {
                while !Task.isCancelled { await Task.yield() }
                let saved = try await store.create(["key": "after cancel"], in: "items")
                let read = try await store.retrieve([saved["_soupEntryId"]?.int64Value ?? -1], from: "items")
                return (Task.isCancelled, read.count)
            }
            task.cancel()
            let (cancelled, readBack) = try await task.value
            #expect(cancelled && readBack == 1)
            #expect(try await store.lookupSoupEntryId(soup: "items", path: "key", value: "after cancel") != nil)
        }
    }

    /// A read-modify-write in one transaction, blocking and async; a failing change saves nothing.
    @Test func modifyReadsChangesAndSavesAtOnce() async throws {
        let directory = TemporaryDirectory()
        for store in try Self.stores(directory) {
            let saved = try await store.create(["key": "a", "n": 1], in: "items")
            let id = try #require(saved["_soupEntryId"]?.int64Value)
            // A synchronous context picks the blocking form.
            func bump() throws -> JSONValue {
                try store.modify(id, in: "items") { entry in entry = ["key": "a", "n": .int((entry["n"]?.int64Value ?? 0) + 1)] }
            }
            let bumped = try bump()
            #expect(bumped["n"] == 2 && bumped["_soupEntryId"] == saved["_soupEntryId"])
            _ = try await store.modify(id, in: "items") { entry in entry = ["key": "a", "n": .int((entry["n"]?.int64Value ?? 0) * 10)] }
            #expect(try await store.retrieve([id], from: "items").first?["n"] == 20)
            struct Refused: Error {}
            await #expect(throws: Refused.self) { try await store.modify(id, in: "items") { _ in throw Refused() } }
            #expect(try await store.retrieve([id], from: "items").first?["n"] == 20)
            await #expect(throws: SmartStoreError.entryNotFound(soup: "items", id: 999)) {
                try await store.modify(999, in: "items") { _ in }
            }
        }
    }
}
