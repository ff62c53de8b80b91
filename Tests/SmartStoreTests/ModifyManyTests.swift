import Foundation
import GRDB
import Testing

@testable import SmartStore

/// `modify` of many entries: read, changed or removed, and saved in one transaction.
@Suite struct ModifyManyTests {
    static func makeStore() throws -> (SmartStore, [Int64]) {
        let store = try SmartStore()
        try store.registerSoup("test", indexSpecs: [IndexSpec("key", .string), IndexSpec("text", .fullText)])
        let saved = try store.create((0..<4).map { ["key": .string("k\($0)"), "text": .string("word\($0)")] }, in: "test")
        return (store, saved.compactMap { $0["_soupEntryId"]?.int64Value })
    }

    @Test func changesRemovesAndLeavesEntries() throws {
        let (store, ids) = try Self.makeStore()
        let untouched = try store.retrieve([ids[2]], from: "test").first?["_soupLastModifiedDate"]
        Thread.sleep(forTimeInterval: 0.002)
        let saved = try store.modify([ids[2], 999, ids[0], ids[1], ids[0]], in: "test") { entry in
            switch entry?["key"] {
            case "k0": entry?["key"] = "changed"
            case "k1": entry = nil
            default: break
            }
        }
        // Only the changed entry is saved (once, though its id came twice); the missing id is skipped.
        #expect(saved.map { $0["_soupEntryId"] } == [.int(ids[0])])
        let entries = try store.retrieve(ids, from: "test")
        #expect(entries.map { $0["key"] } == ["changed", "k2", "k3"])
        // Index columns and full-text rows follow.
        #expect(try store.count(.exact(soup: "test", path: "key", key: "changed", pageSize: 10)) == 1)
        #expect(try store.count(.match(soup: "test", path: "text", key: "word1", pageSize: 10)) == 0)
        // An untouched entry keeps its bookkeeping date.
        #expect(entries[1]["_soupLastModifiedDate"] == untouched && entries[0]["_soupLastModifiedDate"] != untouched)
    }

    @Test func aThrowingChangeSavesNothing() throws {
        struct Refused: Error {}
        let (store, ids) = try Self.makeStore()
        #expect(throws: Refused.self) {
            try store.modify(ids, in: "test") { entry in
                if entry?["key"] == "k3" { throw Refused() }
                entry = nil
            }
        }
        #expect(try store.retrieve(ids, from: "test").count == 4)
    }

    @Test func anUnknownSoupIsATypedError() async throws {
        let (store, ids) = try Self.makeStore()
        await #expect(throws: SmartStoreError.unknownSoup("missing")) { try await store.modify(ids, in: "missing") { _ in } }
    }
}
