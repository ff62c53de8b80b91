import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A live sync's CREATE event for a record whose create is on the wire arrives before the sync
/// up writes the outcome: the live sync stores the event's record as a new clean entry (the
/// local one still has its local id). The outcome folds that copy into the original entry, so
/// the record is held once (issue 47's third finding).
@Suite struct LiveCreateRaceTests {
    static func entries(named name: String, _ harness: SyncHarness) async throws -> [JSONValue] {
        try await harness.store.query(.exact(soup: "accounts", path: "Name", key: .string(name), pageSize: 10))
    }

    /// The copy folds into the entry; the app's edits of the copy (it showed in a list) are
    /// carried onto the entry, with the edits made to the entry itself meanwhile, for the next
    /// sync up.
    @Test(arguments: ["none", "copy", "both"])
    func theEventsCopyOfACreateInFlightIsFoldedIntoTheEntry(editing: String) async throws {
        try await withHarness { harness in
            try await LiveSyncTests.goLive(harness)
            let mine = try await harness.store.createLocally(["Name": "Mine"], objectType: "Account", in: "accounts")
            let copied = TemplateSequenceTests.Once()
            let store = harness.store
            await harness.localForce.faults.observe { request, moment in
                guard moment == .processed, LostCreateTests.isCollectionCreate(request), copied.claim() else { return }
                // The server committed; its answer waits until the live sync stored the event's record.
                _ = try? await LiveSyncTests.eventually(within: .seconds(30)) { try await Self.entries(named: "Mine", harness).count == 2 }
                guard editing != "none",
                    let copy = try? await Self.entries(named: "Mine", harness).first(where: { $0["Id"] != mine["Id"] }),
                    let copyId = copy["_soupEntryId"]?.int64Value
                else { return }
                _ = try? await store.updateLocally(["Industry": "Edited copy"], entryId: copyId, in: "accounts")
                if editing == "both", let entryId = mine["_soupEntryId"]?.int64Value {
                    _ = try? await store.updateLocally(["Description": "Edited entry"], entryId: entryId, in: "accounts")
                }
            }
            let sync = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            await harness.localForce.faults.observe(nil)
            #expect(sync.status == .done && copied.isClaimed)
            let held = try await Self.entries(named: "Mine", harness)
            #expect(held.count == 1, "\(held)")
            let id = try #require(held.first?["Id"]?.stringValue)
            #expect(try await harness.client.allRecords("SELECT Id FROM Account WHERE Name = 'Mine'").count == 1)
            if editing != "none" {
                #expect(held.first?["_soupEntryId"] == mine["_soupEntryId"])
                #expect(held.first?["Industry"] == "Edited copy" && held.first?["__local__"] == true)
                #expect(editing == "copy" || held.first?["Description"] == "Edited entry", "\(held)")
                return try await harness.manager.stopLiveSync(named: "accounts")
            }
            #expect(held.first?["_soupEntryId"] == mine["_soupEntryId"] && held.first?["__local__"] == false)
            // Later events find the one entry.
            try await harness.client.update("Account", id: id, fields: ["Name": "Mine, renamed"])
            #expect(try await LiveSyncTests.eventually { try await Self.entries(named: "Mine, renamed", harness).count == 1 })
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }
}
