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
        #expect(try store.count(.match(soup: "test", path: "text", key: "replaced", pageSize: 10)) == 1)
        #expect(try store.count(.match(soup: "test", path: "text", key: "word2", pageSize: 10)) == 0)
    }

    /// A value per entry (one statement for an unindexed field): every JSON type is set as
    /// itself, missing ids are skipped, the count is of entries changed; an indexed field
    /// follows its column.
    @Test func setsAValuePerEntry() throws {
        let (store, ids) = try Self.makeStore()
        let values: [Int64: JSONValue] = [
            ids[0]: true, ids[1]: false, ids[2]: "text \"quoted\" é", ids[3]: ["at": 12, "list": [1, 2.5, nil]], ids[4]: .null, 999: 1,
        ]
        #expect(try store.setField("stamp", values: values, in: "test") == 5)
        let entries = try store.retrieve(ids, from: "test")
        #expect(entries.map { $0["stamp"] } == ids.map { values[$0] })
        #expect(entries[3]["key"] == "k3" && entries[3]["nested"] == ["a": 1])
        #expect(try store.setField("mark", values: [ids[0]: 3, ids[1]: 4], in: "test") == 2)
        #expect(try store.count(.exact(soup: "test", path: "mark", key: 4, pageSize: 10)) == 1)
        #expect(try store.setField("stamp", values: [:], in: "test") == 0)
        #expect(throws: SmartStoreError.unknownSoup("nope")) { try store.setField("f", values: [ids[0]: 1], in: "nope") }
        #expect(throws: SmartStoreError.invalidPath("a.b")) { try store.setField("a.b", values: [ids[0]: 1], in: "test") }
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
