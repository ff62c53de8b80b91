import FastJSON
import Foundation
import SmartStore
import Testing

#if canImport(Combine)
    import Combine // elsewhere SmartStore re-exports OpenCombine
#endif

/// The SDK's SmartStore names, spelled as an SDK app spells them.
@Suite struct SDKNamesTests {
    @Test func registerSoupWithIndexPathsAndQueryAsAResult() throws {
        let store = try SmartStore()
        // The SDK's Swift extension: a Result, JSON1 indexes.
        _ = store.registerSoup(withName: "Account", withIndexPaths: ["Name", "Industry"])
        #expect(try store.soupNames() == ["Account"])
        #expect(try store.indexSpecs(ofSoup: "Account").map(\.type) == [.json1, .json1])
        guard case .failure = store.registerSoup(withName: "bad name!", withIndexPaths: ["Name"]) else {
            Issue.record("a bad soup name registered")
            return
        }
        for index in 0..<2_500 { _ = try store.create(["Name": .string("A\(index)"), "Industry": "Energy"], in: "Account") }
        _ = try store.create(["Name": "Z no industry"], in: "Account")
        // Every row, across pages, as Foundation values: a row casts to [String?] as in the
        // SDK's template, a null cell included.
        let rows = try store.query("select {Account:Name}, {Account:Industry} from {Account} order by {Account:Name}").get()
        #expect(rows.count == 2_501)
        #expect((rows.first as? [String?]) == ["A0", "Energy"])
        #expect((rows.last as? [String?]) == ["Z no industry", nil])
        // An entry is a dictionary.
        let entries = try store.query("select {Account:_soup} from {Account} where {Account:Name} = 'A7'").get()
        let entry = (entries.first as? [Any])?.first as? [String: Any]
        #expect(entry?["Name"] as? String == "A7")
        #expect(entry?["_soupEntryId"] as? Int != nil)
        // An unknown soup is the error, not a throw.
        guard case .failure(let error) = store.query("select {Nope:Name} from {Nope}") else {
            Issue.record("a query of an unknown soup succeeded")
            return
        }
        #expect("\(error)".contains("Nope"))
        #expect(SmartStore.defaultStoreName == StoreDirectory.defaultStoreName)
    }

    @Test func thePublisherWithoutAPageSizeIsTheSDKs() throws {
        let store = try SmartStore()
        _ = store.registerSoup(withName: "Account", withIndexPaths: ["Name"])
        _ = try store.create(["Name": "Acme"], in: "Account")
        // Spelled as the SDK spells it, the call picks the SDK's form; with a page size, ours.
        let sdkForm = store.publisher(for: "select {Account:Name} from {Account}")
        #expect(type(of: sdkForm) == Future<[Any], SmartStoreError>.self)
        let ours = store.publisher(for: "select {Account:Name} from {Account}", pageSize: 10)
        #expect(type(of: ours) == Future<[JSONValue], any Error>.self)
        // The SDK's Future runs the query when made, as the SDK's does: the value is there.
        var names: [String?] = []
        let cancellable = sdkForm.sink(
            receiveCompletion: { _ in }, receiveValue: { rows in names = rows.compactMap { ($0 as? [String?])?.first ?? nil } })
        #expect(names == ["Acme"])
        cancellable.cancel()
    }
}

/// The SDK's query spec JSON, cursors, size, plans and transactions.
@Suite struct SDKStoreExtrasTests {
    static func store(entries: Int) throws -> SmartStore {
        let store = try SmartStore()
        try store.registerSoup(
            "accounts", indexSpecs: [IndexSpec("Name", .string), IndexSpec("Employees", .integer), IndexSpec("About", .fullText)])
        _ = try store.create(
            (0..<entries).map { ["Name": .string("A\(1000 + $0)"), "Employees": .int(Int64($0)), "About": .string("text \($0)")] },
            in: "accounts")
        return store
    }

    @Test func querySpecsReadAndWriteTheSDKsJSON() throws {
        let store = try Self.store(entries: 30)
        let cases: [(JSONValue, Int)] = [
            (["queryType": "exact", "indexPath": "Name", "matchKey": "A1003", "pageSize": 5], 1),
            (
                [
                    "queryType": "range", "indexPath": "Employees", "beginKey": 10, "endKey": 19, "order": "descending",
                    "orderPath": "Employees", "pageSize": 50,
                ], 10
            ),
            (["queryType": "range", "pageSize": 100], 30), // no indexPath: every entry
            (["queryType": "like", "indexPath": "Name", "likeKey": "A100%"], 10),
            (["queryType": "match", "indexPath": "About", "matchKey": "text", "pageSize": 100], 30),
            (["queryType": "smart", "smartSql": "select count(*) from {accounts}"], 1),
        ]
        for (json, expected) in cases {
            let spec = try QuerySpec(sdkJSON: json, soupName: "accounts")
            #expect(try store.count(spec) == expected, "\(json)")
            // Written back and read again: the same query.
            #expect(try QuerySpec(sdkJSON: spec.sdkJSON, soupName: nil) == spec, "\(json)")
        }
        let descending = try QuerySpec(sdkJSON: cases[1].0, soupName: "accounts")
        #expect(try store.query(descending).first?["Employees"] == 19)
        // The SDK's defaults: 10 a page, ascending.
        let defaults = try QuerySpec(sdkJSON: ["queryType": "range", "pageSize": -3], soupName: "accounts")
        #expect(defaults.pageSize == 10 && defaults.order == .ascending)
        #expect(defaults.sdkJSON["indexPath"] == nil && defaults.sdkJSON["soupName"] == "accounts")
        // Bad specs are typed errors.
        let bad: [JSONValue] = [
            ["queryType": "fuzzy"], ["queryType": "exact", "matchKey": "x"], ["queryType": "smart"],
            ["queryType": "range", "beginKey": ["nested": 1]], ["queryType": "like", "indexPath": 3], "not an object",
            ["queryType": "exact", "indexPath": "Name", "matchKey": "x", "selectPaths": [1]],
        ]
        for json in bad {
            #expect(throws: SmartStoreError.self, "\(json)") { try QuerySpec(sdkJSON: json, soupName: "accounts") }
        }
        #expect(throws: SmartStoreError.invalidQuerySpec("Invalid queryType: 'fuzzy'")) {
            try QuerySpec(sdkJSON: ["queryType": "fuzzy"], soupName: "accounts")
        }
        #expect(throws: SmartStoreError.self) { try QuerySpec(sdkJSON: ["queryType": "range"], soupName: nil) }
    }

    @Test func aCursorPagesThroughAQuery() throws {
        let store = try Self.store(entries: 23)
        var cursor = try StoreCursor(store: store, querySpec: .all(soup: "accounts", orderPath: "Name", pageSize: 10))
        #expect(cursor.totalEntries == 23 && cursor.totalPages == 3 && cursor.currentPageIndex == 0)
        #expect(cursor.currentPageOrderedEntries.first?["Name"] == "A1000")
        try cursor.moveToPage(2)
        #expect(cursor.currentPageOrderedEntries.count == 3 && cursor.currentPageOrderedEntries.last?["Name"] == "A1022")
        try cursor.moveToPage(99) // kept to the last page
        #expect(cursor.currentPageIndex == 2)
        try cursor.moveToPage(-1)
        #expect(cursor.currentPageIndex == 0)
        #expect(cursor.json["totalPages"] == 3 && cursor.json["currentPageOrderedEntries"]?.arrayValue?.count == 10)
        let other = try StoreCursor(store: store, querySpec: .all(soup: "accounts", pageSize: 5))
        #expect(other.cursorId != cursor.cursorId)
        let empty = try StoreCursor(store: try SmartStore(), querySpec: .smart("select 1 where 0", pageSize: 5))
        #expect(empty.totalPages == 0 && empty.currentPageOrderedEntries.isEmpty)
    }

    @Test func sizeAndPlan() throws {
        let store = try Self.store(entries: 10)
        let before = store.databaseSize()
        _ = try store.create(
            (0..<2_000).map { ["Name": .string("B\($0)"), "About": .string(String(repeating: "x", count: 200))] }, in: "accounts")
        #expect(store.databaseSize() > before + 400_000)
        let plan = try store.explainQueryPlan(.exact(soup: "accounts", path: "Name", key: "A1003", pageSize: 10))
        #expect(plan["sql"]?.stringValue?.contains("TABLE_1") == true)
        let details = plan["plan"]?.arrayValue?.compactMap { $0["detail"]?.stringValue } ?? []
        #expect(details.contains { $0.contains("USING INDEX") }, "\(details)")
        #expect(throws: SmartStoreError.self) { try store.explainQueryPlan(.smart("select {nope:x} from {nope}", pageSize: 1)) }
        try store.resumeLongOperations() // nothing pending: a no-op
    }

    @Test func aTransactionCommitsWholeOrNotAtAll() throws {
        let store = try Self.store(entries: 3)
        let created = try store.inTransaction { tx in
            let entries = try tx.create([["Name": "T1"], ["Name": "T2"]], in: "accounts")
            try tx.delete([try #require(entries[0]["_soupEntryId"]?.int64Value)], from: "accounts")
            #expect(try tx.count(.all(soup: "accounts", pageSize: 1)) == 4)
            return entries.count
        }
        #expect(try created == 2 && store.count(.all(soup: "accounts", pageSize: 1)) == 4)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.inTransaction { tx in
                _ = try tx.upsert([["Name": "T3"]], in: "accounts")
                _ = try tx.deleteByQuery(.all(soup: "accounts", pageSize: 10), from: "accounts")
                #expect(try tx.query(.all(soup: "accounts", pageSize: 10)).isEmpty)
                throw Abort()
            }
        }
        #expect(try store.count(.all(soup: "accounts", pageSize: 1)) == 4)
        // The store's own calls inside the body throw (GRDB would stop the process on a nested
        // write), and the transaction still commits what it wrote through its own calls.
        let outcome = try store.inTransaction { tx in
            _ = try tx.create([["Name": "T4"]], in: "accounts")
            let nested = Result { try store.create(["Name": "nested"], in: "accounts") }
            let read = Result { try store.query(.all(soup: "accounts", pageSize: 10)) }
            return (nested, read)
        }
        #expect(throws: SmartStoreError.self) { try outcome.0.get() }
        #expect(throws: SmartStoreError.self) { try outcome.1.get() }
        #expect(try store.count(.exact(soup: "accounts", path: "Name", key: "T4", pageSize: 1)) == 1)
        #expect(try store.count(.exact(soup: "accounts", path: "Name", key: "nested", pageSize: 1)) == 0)
        // Outside a body, the same thread's calls work again.
        _ = try store.create(["Name": "after"], in: "accounts")
    }

    @Test func anAsynchronousTransaction() async throws {
        let store = try Self.store(entries: 3)
        _ = try await store.create(["Name": "T2"], in: "accounts")
        let updated = try await store.inTransaction { tx in
            let first = try tx.query(.exact(soup: "accounts", path: "Name", key: "T2", pageSize: 1))[0]
            let id = first["_soupEntryId"]?.int64Value ?? 0
            return try tx.update(["Name": "T2 edited"], id: id, in: "accounts")["Name"]
        }
        #expect(updated == "T2 edited")
        #expect(try await store.count(.exact(soup: "accounts", path: "Name", key: "T2 edited", pageSize: 1)) == 1)
    }
}
