import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Scenario 28: the same sync up semantics through single-record, batch (composite) and collection targets.
@Suite struct SyncUpTargetParityTests {
    static let targets: [any SyncUpTarget] = [SingleRecordSyncUpTarget(), BatchSyncUpTarget(), CollectionSyncUpTarget()]

    @Test(arguments: [0, 1, 2])
    func sameOutcomes(targetIndex: Int) async throws {
        let target = Self.targets[targetIndex]
        try await withHarness { harness in
            let ids = try await harness.createAccounts(6)
            try await harness.manager.syncDown(target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            for index in 0..<30 {
                try await harness.store.createLocally(["Name": .string("New \(index)")], objectType: "Account", in: "accounts")
            }
            try await harness.store.createLocally(["Name": ""], objectType: "Account", in: "accounts") // fails: required
            try await harness.store.updateLocally(["Name": "local 0"], entryId: try harness.localEntryId(ids[0]), in: "accounts")
            try await harness.store.updateLocally(["Name": "local 1"], entryId: try harness.localEntryId(ids[1]), in: "accounts")
            try await harness.store.updateLocally(["Name": "local 2"], entryId: try harness.localEntryId(ids[2]), in: "accounts")
            try await harness.store.deleteLocally(entryId: try harness.localEntryId(ids[3]), in: "accounts")
            try await Task.sleep(for: .milliseconds(1100)) // a later second: If-Unmodified-Since has second precision
            try await harness.client.update("Account", id: ids[1], fields: ["Name": "remote 1"])
            try await harness.client.delete("Account", id: ids[2])
            let options = SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"])
            let sync = try await harness.manager.syncUp(target: target, options: options, soupName: "accounts")
            #expect(sync.status == .done && sync.failedRecordCount == 1, "\(sync.error)")
            var records = try harness.localRecords()
            #expect(records[ids[0]]?["__local__"] == false)
            #expect(records[ids[1]]?["__local__"] == true) // changed remotely: left alone
            #expect(records[ids[2]]?["__local__"] == true) // deleted remotely: left alone
            #expect(records[ids[3]] == nil)
            #expect(try await harness.client.retrieve("Account", id: ids[1], fields: ["Name"])["Name"] == "remote 1")
            #expect(try await harness.client.query("SELECT COUNT() FROM Account WHERE Name LIKE 'New %'").totalSize == 30)
            let overwrite = try await harness.manager.syncUp(
                target: target, options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]),
                soupName: "accounts")
            #expect(overwrite.failedRecordCount == 1)
            records = try harness.localRecords()
            #expect(try await harness.client.retrieve("Account", id: ids[1], fields: ["Name"])["Name"] == "local 1")
            let recreated = try #require(records.values.first { $0["Name"] == "local 2" })
            #expect(recreated["Id"]?.stringValue != ids[2] && recreated["__local__"] == false)
            #expect(records.values.filter { $0["__local__"] == true }.count == 1)
        }
    }
}
