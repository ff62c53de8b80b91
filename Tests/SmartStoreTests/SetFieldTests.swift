import Foundation
import GRDB
import Testing

@testable import SmartStore

/// `setField`: one field on many entries, without re-encoding them unless the field is indexed.
@Suite struct SetFieldTests {
    static func makeStore() throws -> (SmartStore, [Int64]) {
        let store = try SmartStore()
        try store.registerSoup("test", indexSpecs: [IndexSpec("key", .string), IndexSpec("mark", .integer), IndexSpec("text", .fullText)])
        let saved = try store.create(
            (0..<5).map { ["key": .string("k\($0)"), "text": .string("word\($0)"), "nested": ["a": 1]] }, in: "test")
        return (store, saved.compactMap { $0["_soupEntryId"]?.int64Value })
    }

    @Test func setsAnUnindexedFieldOnTheGivenEntriesOnly() throws {
        let (store, ids) = try Self.makeStore()
        Thread.sleep(forTimeInterval: 0.002)
        #expect(try store.setField("stamp", to: ["at": 12, "by": "sync"], entryIds: [ids[1], ids[3], 999], in: "test") == 2)
        let entries = try store.retrieve(ids, from: "test")
        #expect(entries[1]["stamp"] == ["at": 12, "by": "sync"] && entries[3]["stamp"]?["at"] == 12)
        #expect(entries[0]["stamp"] == nil && entries[2]["stamp"] == nil)
        #expect(entries[1]["key"] == "k1" && entries[1]["nested"] == ["a": 1])
        // Bookkeeping follows: the JSON's date and the column agree, and moved past creation.
        let row = try store.read { db in
            try Row.fetchOne(db, sql: "SELECT created, lastModified FROM TABLE_1 WHERE id = ?", arguments: [ids[1]])
        }
        let created: Int64 = row?["created"] ?? 0
        let lastModified: Int64 = row?["lastModified"] ?? 0
        #expect(lastModified > created && entries[1]["_soupLastModifiedDate"] == .int(lastModified))
        // nil removes the field.
        #expect(try store.setField("stamp", to: nil, entryIds: [ids[1]], in: "test") == 1)
        #expect(try store.retrieve([ids[1]], from: "test").first?["stamp"] == nil)
    }

    @Test func anIndexedFieldKeepsIndexAndFullTextInStep() throws {
        let (store, ids) = try Self.makeStore()
        #expect(try store.setField("mark", to: 7, entryIds: [ids[0], ids[4]], in: "test") == 2)
        #expect(try store.count(.exact(soup: "test", path: "mark", key: 7, pageSize: 10)) == 2)
        #expect(try store.setField("text", to: "replaced", entryIds: [ids[2]], in: "test") == 1)
        #expect(try store.count(.match(soup: "test", path: "text", matchKey: "replaced", pageSize: 10)) == 1)
        #expect(try store.count(.match(soup: "test", path: "text", matchKey: "word2", pageSize: 10)) == 0)
    }

    @Test func badFieldsAndSoupsAreTypedErrors() throws {
        let (store, ids) = try Self.makeStore()
        for field in ["a.b", "", "x'y", "_soupEntryId", "a\"b"] {
            #expect(throws: SmartStoreError.invalidPath(field)) { try store.setField(field, to: 1, entryIds: ids, in: "test") }
        }
        #expect(throws: SmartStoreError.unknownSoup("nope")) { try store.setField("f", to: 1, entryIds: ids, in: "nope") }
        #expect(try store.retrieve(ids, from: "test").allSatisfy { $0["f"] == nil })
    }
}
