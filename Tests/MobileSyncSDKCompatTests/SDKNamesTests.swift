import FastJSON
import Foundation
import MobileSyncSDKCompat
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

/// The SDK's query spec JSON.
@Suite struct SDKQuerySpecJSONTests {
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

    /// Numbers and booleans come out as `NSNumber`s, as `JSONSerialization` makes them on iOS:
    /// the casts an SDK app writes succeed where they do there.
    @Test func valuesBridgeAsOnIOS() throws {
        let store = try SmartStore()
        _ = store.registerSoup(withName: "things", withIndexPaths: ["n"])
        _ = try store.create(
            ["n": 1, "flag": true, "ratio": 2.5, "whole": 3.0, "big": .int(1 << 60), "nested": ["count": 2]], in: "things")
        let rows = try store.query("select {things:n}, {things:flag}, {things:ratio}, {things:_soup} from {things}").get()
        let row = try #require(rows.first as? [Any])
        #expect(row[0] as? Int == 1 && row[0] as? Double == 1.0 && row[0] as? Bool == true && row[0] is NSNumber)
        #expect(row[1] as? Bool == true && row[1] as? Int == 1)
        #expect(row[2] as? Double == 2.5 && row[2] as? Int == nil && row[2] as? Bool == nil)
        let entry = try #require(row[3] as? [String: Any])
        #expect(entry["whole"] as? Int == 3 && entry["big"] as? Int64 == 1 << 60 && entry["n"] as? Bool == true)
        #expect((entry["nested"] as? [String: Any])?["count"] as? Bool == nil) // 2 is no Bool, as on iOS
        #expect((entry["nested"] as? [String: Any])?["count"] as? UInt == 2)
    }
}
