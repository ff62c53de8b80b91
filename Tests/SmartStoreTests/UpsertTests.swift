import Foundation
import GRDB
import Testing

@testable import SmartStore

/// Scenarios 3 and 4: upsert by external id, and its three errors.
@Suite struct UpsertTests {
    static func makeStore() throws -> SmartStore {
        let store = try SmartStore()
        try store.registerSoup(
            "test", indexSpecs: [IndexSpec("key", .string), IndexSpec("value", .string), IndexSpec("amount", .floating)])
        return store
    }

    @Test func upsertWithExternalIdUpdatesTheMatchingEntry() throws {
        let store = try Self.makeStore()
        var saved: [JSONValue] = []
        for (key, value) in [("ka1", "va1"), ("ka2", "va2"), ("ka3", "va3")] {
            saved.append(try store.upsert(["key": .string(key), "value": .string(value)], in: "test", externalIdPath: "key"))
        }
        Thread.sleep(forTimeInterval: 0.01) // lastModified must move past created
        let updated = try store.upsert(["key": "ka2", "value": "va2u"], in: "test", externalIdPath: "key")
        #expect(updated["_soupEntryId"] == saved[1]["_soupEntryId"])
        let rows = try store.read { db in try Row.fetchAll(db, sql: "SELECT id, soup, created, lastModified FROM TABLE_1 ORDER BY id") }
        #expect(rows.count == 3)
        for (index, row) in rows.enumerated() {
            let created: Int64 = row["created"]
            let lastModified: Int64 = row["lastModified"]
            if index == 1 { #expect(created < lastModified) } else { #expect(created == lastModified) }
            let entry = try JSONValue(parsing: row["soup"] as String)
            #expect(entry["_soupLastModifiedDate"] == .int(lastModified))
            #expect(entry["_soupEntryId"] == .int(row["id"]))
        }
        let retrieved = try store.retrieve([saved[1]["_soupEntryId"]?.int64Value ?? -1], from: "test")
        #expect(retrieved == [updated])
        #expect(updated["value"] == "va2u")
    }

    @Test func upsertBySoupEntryIdCreatesThenUpdates() throws {
        let store = try Self.makeStore()
        var entry = try store.upsert(["key": "k"], in: "test")
        #expect(entry["_soupEntryId"] == 1)
        entry["value"] = "changed"
        let again = try store.upsert(entry, in: "test")
        #expect(again["_soupEntryId"] == 1)
        #expect(try store.count(.all(soup: "test", pageSize: 10)) == 1)
        #expect(try store.lookupSoupEntryId(soup: "test", path: "value", value: "changed") == 1)
        #expect(try store.lookupSoupEntryId(soup: "test", path: "value", value: "nothing") == nil)
    }

    @Test func upsertOnNonIndexedPathFails() throws {
        let store = try Self.makeStore()
        #expect(throws: SmartStoreError.noIndexForPath(soup: "test", path: "other")) {
            try store.upsert(["other": "x"], in: "test", externalIdPath: "other")
        }
        #expect(SmartStoreError.noIndexForPath(soup: "test", path: "other").description == "test does not have an index on other")
    }

    @Test func upsertWithoutExternalIdValueFails() throws {
        let store = try Self.makeStore()
        let error = #expect(throws: SmartStoreError.self) { try store.upsert(["value": "x"], in: "test", externalIdPath: "key") }
        #expect(error?.description == "For upsert with external ID path 'key', value cannot be empty for any entries.")
        #expect(throws: SmartStoreError.emptyExternalId(path: "key")) {
            try store.upsert(["key": nil, "value": "x"], in: "test", externalIdPath: "key")
        }
        #expect(try store.count(.all(soup: "test", pageSize: 10)) == 0)
    }

    @Test func upsertMatchingSeveralEntriesFails() throws {
        let store = try Self.makeStore()
        try store.create([["key": "ka", "value": "1"], ["key": "ka", "value": "2"]], in: "test")
        let error = #expect(throws: SmartStoreError.self) {
            try store.upsert(["key": "ka", "value": "3"], in: "test", externalIdPath: "key")
        }
        #expect(error?.description == "There are more than one soup elements where key is ka")
        #expect(try store.query(.all(soup: "test", orderPath: "value", pageSize: 10)).map { $0["value"] } == ["1", "2"])
    }

    @Test func batchUpsertIsAllOrNothing() throws {
        let store = try Self.makeStore()
        #expect(throws: SmartStoreError.emptyExternalId(path: "key")) {
            try store.upsert([["key": "a"], ["key": "b"], ["value": "no key"]], in: "test", externalIdPath: "key")
        }
        #expect(try store.count(.all(soup: "test", pageSize: 10)) == 0)
    }

    @Test func updateOfMissingEntryIsAnError() throws {
        let store = try Self.makeStore()
        #expect(throws: SmartStoreError.entryNotFound(soup: "test", id: 42)) { try store.update(["key": "x"], id: 42, in: "test") }
    }

    @Test func deleteAndRetrieveByIds() throws {
        let store = try Self.makeStore()
        let ids = try store.create((1...5).map { index -> JSONValue in ["key": .string("k\(index)")] }, in: "test").compactMap {
            $0["_soupEntryId"]?.int64Value
        }
        #expect(ids == [1, 2, 3, 4, 5])
        try store.delete([2, 4], from: "test")
        #expect(try store.retrieve([5, 4, 3, 2, 1], from: "test").map { $0["key"] } == ["k5", "k3", "k1"])
        // Ids are never reused.
        #expect(try store.create(["key": "k6"], in: "test")["_soupEntryId"] == 6)
    }
}
