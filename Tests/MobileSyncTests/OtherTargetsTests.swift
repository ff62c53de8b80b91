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
                try harness.store.create(
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
}
