import Foundation
import MobileSyncSDKCompat
import SmartStore
import Testing

/// SmartStore's entry calls as an SDK app writes them: `SoupIndex`es, `[AnyHashable: Any]`
/// entries, `NSNumber` ids and counts, `UInt` page indexes.
@Suite struct SDKEntriesTests {
    static func store() throws -> SmartStore {
        let store = try SmartStore()
        let indices = [
            SoupIndex(path: "Id", indexType: kSoupIndexTypeString, columnName: nil),
            SoupIndex(path: "Name", indexType: kSoupIndexTypeString, columnName: nil),
            SoupIndex(path: "Rating", indexType: kSoupIndexTypeInteger, columnName: nil),
            SoupIndex(path: kSyncTargetLocal, indexType: kSoupIndexTypeString, columnName: nil),
        ].compactMap { $0 }
        try store.registerSoup(withName: "Account", withIndices: indices)
        return store
    }

    @Test func entriesGoInAndComeOutAsFoundationValues() throws {
        let store = try Self.store()
        #expect(SoupIndex(path: "x", indexType: "fuzzy", columnName: nil) == nil)
        #expect(store.soupExists(forName: "Account") && !store.soupExists(forName: "Nope") && store.allSoupNames() == ["Account"])
        #expect(store.indices(forSoupNamed: "Account").map(\.path) == ["Id", "Name", "Rating", kSyncTargetLocal])
        #expect(store.indices(forSoupNamed: "Account").allSatisfy { !$0.columnName.isEmpty } && store.name == ":memory:")
        let entries: [[AnyHashable: Any]] = [
            ["Id": "001A", "Name": "Acme", "Rating": NSNumber(value: 3), kSyncTargetLocal: false],
            ["Id": "001B", "Name": "Initech", "Rating": 5, kSyncTargetLocal: true, "Tags": ["a", NSNull()]],
        ]
        let saved = store.upsert(entries: entries, forSoupNamed: "Account")
        #expect(saved.count == 2)
        let ids = saved.compactMap { $0[SmartStore.soupEntryId] as? NSNumber }
        #expect(ids.count == 2)
        let exact = QuerySpec.buildExactQuerySpec(
            soupName: "Account", path: "Name", matchKey: "Initech", orderPath: "Name", order: .ascending, pageSize: 10)
        let found = try store.query(using: exact, startingFromPageIndex: 0)
        let initech = try #require(found.first as? [AnyHashable: Any])
        #expect(initech["Rating"] as? Int == 5 && initech[kSyncTargetLocal] as? Bool == true && initech["Tags"] as? [Any] != nil)
        let all = QuerySpec.buildAllQuerySpec(soupName: "Account", orderPath: "Rating", order: .descending, pageSize: 1)
        #expect(try store.count(using: all) == NSNumber(value: 2))
        #expect((try store.query(using: all, startingFromPageIndex: 1).first as? [AnyHashable: Any])?["Name"] as? String == "Acme")
        let smart = try #require(
            QuerySpec.buildSmartQuerySpec(smartSql: "select {Account:Name} from {Account} where {Account:Rating} > ?", pageSize: 10))
        #expect(try store.query(using: smart, startingFromPageIndex: 0, whereArgs: [4]) as? [[String]] == [["Initech"]])
        #expect(
            store.retrieve(usingSoupEntryIds: ids.reversed(), fromSoupNamed: "Account").map { $0["Id"] as? String } == ["001B", "001A"])
        #expect(try store.lookupSoupEntryId(soupNamed: "Account", fieldPath: "Id", fieldValue: "001A") == ids[0])
        #expect(throws: SmartStoreError.self) { try store.lookupSoupEntryId(soupNamed: "Account", fieldPath: "Id", fieldValue: "none") }

        // By external id: the same record updated, not a second one.
        let updated = try store.upsert(entries: [["Id": "001A", "Name": "Acme Corp"]], forSoupNamed: "Account", withExternalIdPath: "Id")
        #expect((updated.first as? [AnyHashable: Any])?[SmartStore.soupEntryId] as? NSNumber == ids[0])
        let like = QuerySpec.buildLikeQuerySpec(
            soupName: "Account", path: "Name", likeKey: "Acme%", orderPath: "Name", order: .ascending, pageSize: 10)
        #expect(try store.count(using: like) == 1)
        try store.removeEntries(usingQuerySpec: like, forSoupNamed: "Account")
        try store.remove(entryIds: [ids[1]], forSoupNamed: "Account")
        #expect(try store.count(using: all) == 0)
        store.removeSoup("Account")
        #expect(store.allSoupNames().isEmpty)
    }

    /// What no JSON holds is refused with a typed error, and nothing is written; the quiet
    /// forms answer empty.
    @Test func badInputIsRefusedWholeAndTyped() throws {
        let store = try Self.store()
        #expect(store.upsert(entries: [["Id": "1"], ["Id": "2", "When": Date()]], forSoupNamed: "Account").isEmpty)
        #expect(throws: SmartStoreError.self) {
            try store.upsert(entries: [["Id": "3", "Ratio": Double.nan]], forSoupNamed: "Account", withExternalIdPath: "Id")
        }
        #expect(throws: SmartStoreError.self) {
            try store.upsert(entries: [[1: "not a string key"]], forSoupNamed: "Account", withExternalIdPath: "Id")
        }
        var deep: Any = "bottom"
        for _ in 0..<600 { deep = [deep] }
        #expect(throws: SmartStoreError.self) {
            try store.upsert(entries: [["Deep": deep]], forSoupNamed: "Account", withExternalIdPath: "Id")
        }
        let all = QuerySpec.buildAllQuerySpec(soupName: "Account", orderPath: "Id", order: .ascending, pageSize: 10)
        #expect(try store.count(using: all) == 0)
        #expect(store.retrieve(usingSoupEntryIds: [1], fromSoupNamed: "Nope").isEmpty && store.indices(forSoupNamed: "Nope").isEmpty)
        #expect(try store.query(using: all, startingFromPageIndex: 5).isEmpty)
        #expect(throws: SmartStoreError.self) { try store.query(using: all, startingFromPageIndex: UInt.max) }
    }
}
