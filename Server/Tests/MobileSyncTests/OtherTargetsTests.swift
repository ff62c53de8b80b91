import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

@Suite struct OtherTargetsTests {
    @Test func soslTarget() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(5, prefix: "Rocket")
            try await harness.createAccounts(3, prefix: "Boring")
            let target = SoslSyncDownTarget(query: "FIND {Rocket*} IN NAME FIELDS RETURNING Account(Id, Name, LastModifiedDate)")
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "sosl")
            #expect(sync.status == .done && sync.totalSize == 5)
            #expect(try harness.localRecords().values.allSatisfy { $0["Name"]?.stringValue?.hasPrefix("Rocket") == true })
            #expect(try harness.localRecords().count == 5)
        }
    }

    @Test func mruTarget() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(4)
            _ = try await harness.client.query("SELECT Id FROM Account WHERE Id = '\(ids[2])' FOR VIEW")
            let target = MruSyncDownTarget(objectType: "Account", fieldlist: ["Name"])
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "mru")
            #expect(sync.status == .done && sync.totalSize == 4)
            #expect(try harness.localRecords().count == 4)
            try await harness.client.delete("Account", id: ids[0])
            #expect(try await harness.manager.cleanResyncGhosts(id: sync.id) == 1)
        }
    }

    /// Scenario 29: refresh re-fetches the soup's own records in slices; resync only brings changes.
    @Test func refreshTarget() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(7)
            // The soup knows 5 of them, with stale names.
            for id in ids.prefix(5) {
                try await harness.store.create(
                    ["Id": .string(id), "Name": "stale", "attributes": ["type": "Account"], "__local__": false], in: "accounts")
            }
            let target = RefreshSyncDownTarget(objectType: "Account", fieldlist: ["Name"], soupName: "accounts", countIdsPerSoql: 2)
            let before = harness.client.requestCount
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "refresh")
            #expect(sync.status == .done && harness.client.requestCount - before == 3) // 5 ids, 2 per query
            var records = try harness.localRecords()
            #expect(records.count == 5 && records.values.allSatisfy { $0["Name"]?.stringValue?.hasPrefix("Account") == true })
            try await harness.client.update("Account", id: ids[1], fields: ["Name": "changed"])
            let again = try await harness.manager.reSync(named: "refresh")
            #expect(again.status == .done)
            records = try harness.localRecords()
            #expect(records[ids[1]]?["Name"] == "changed" && records.count == 5)
        }
    }

    /// Local ids sort before these server ids ("m0W…" > "local_…"): a slice of local ids only, or
    /// with fewer server ids than the slice size, must not end the refresh.
    @Test func refreshSkipsLocalIdsWithoutStopping() async throws {
        let schema = try SchemaFile.load(Data(#"{"objects": [{"name": "Widget__c", "keyPrefix": "m0W"}]}"#.utf8))
        try await withHarness(schema: schema) { harness in
            let records: [JSONValue] = (0..<3).map { ["attributes": ["type": "Widget__c"], "Name": .string("fresh \($0)")] }
            let ids = try await harness.client.createRecords(records).compactMap(\.id)
            try #require(ids.count == 3 && ids.allSatisfy { $0 > "local_" })
            for id in ["local_1", "local_2", "local_3"] + ids {
                try await harness.store.create(
                    ["Id": .string(id), "Name": "stale", "attributes": ["type": "Widget__c"], "__local__": .bool(id.hasPrefix("local_"))],
                    in: "accounts")
            }
            let target = RefreshSyncDownTarget(objectType: "Widget__c", fieldlist: ["Name"], soupName: "accounts", countIdsPerSoql: 2)
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "refresh")
            #expect(sync.status == .done)
            let local = try harness.localRecords()
            #expect(ids.map { local[$0]?["Name"]?.stringValue } == ["fresh 0", "fresh 1", "fresh 2"])
            #expect(["local_1", "local_2", "local_3"].map { local[$0]?["Name"]?.stringValue } == ["stale", "stale", "stale"])
        }
    }
}
