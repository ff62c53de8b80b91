import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import TestLocking
import Testing

@testable import LocalForce
@testable import MobileSync

/// A live replica never goes stale: a resync beside it never puts back an older version, a
/// ghost cleanup never deletes what it inserted meanwhile, and the records whose events it
/// skipped while they were dirty are read again once a sync up cleaned them (issue 47's
/// seventh finding).
@Suite struct LiveReplicaTests {
    static func isGhostQuery(_ request: APIRequest) -> Bool {
        request.method == "GET" && request.parameter("q").map { $0.hasPrefix("SELECT Id FROM") && $0.contains("ORDER BY Id") } == true
    }

    /// The resync's page is read with version 1 of a record; before the resync stores it, the
    /// live sync applies version 2's event. The page does not put version 1 back (it did, and no
    /// later event corrected it).
    @Test func aResyncPageReadBeforeANewerEventDoesNotOverwriteIt() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(2)
            try await LiveSyncTests.goLive(harness)
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "Version 1"])
            #expect(try await LiveSyncTests.eventually { try harness.localRecords()[ids[0]]?["Name"] == "Version 1" })
            let once = TemplateSequenceTests.Once()
            let client = harness.client
            await harness.localForce.faults.observe { request, moment in
                guard moment == .processed, request.method == "GET", request.parameter("q")?.contains("FROM Account") == true,
                    once.claim()
                else { return }
                // The resync's answer holds version 1; version 2 reaches the store first.
                try? await client.update("Account", id: ids[0], fields: ["Name": "Version 2"])
                _ = try? await LiveSyncTests.eventually(within: .seconds(30)) { try harness.localRecords()[ids[0]]?["Name"] == "Version 2" }
            }
            #expect(try await harness.manager.reSync(named: "accounts").status == .done)
            await harness.localForce.faults.observe(nil)
            #expect(once.isClaimed)
            #expect(try harness.localRecords()[ids[0]]?["Name"] == "Version 2")
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    /// A record created on the server after the cleanup read the server's ids, inserted by the
    /// live sync from its event before the cleanup read that part of the soup: it stays (it
    /// was deleted as a ghost).
    @Test func aRecordTheLiveSyncInsertsDuringACleanupStays() async throws {
        try await withHarness { harness in
            _ = try await harness.createAccounts(3)
            try await LiveSyncTests.goLive(harness)
            let once = TemplateSequenceTests.Once()
            let client = harness.client
            let created = Locked<String?>(nil)
            await harness.localForce.faults.observe { request, moment in
                guard moment == .processed, Self.isGhostQuery(request), once.claim() else { return }
                guard let id = try? await client.create("Account", fields: ["Name": "Born during the cleanup"]) else { return }
                created.withLock { $0 = id }
                _ = try? await LiveSyncTests.eventually(within: .seconds(30)) { try harness.localRecords()[id] != nil }
            }
            let sync = try #require(try await harness.manager.syncStatus(named: "accounts"))
            let removed = try await harness.manager.cleanResyncGhosts(id: sync.id)
            await harness.localForce.faults.observe(nil)
            let id = try #require(created.current)
            #expect(removed == 0)
            #expect(try harness.localRecords()[id]?["Name"] == "Born during the cleanup")
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    /// Another user renames a record the app is editing: the live sync skips the event (the
    /// record is dirty). The sync up sends only Industry, and its read back only the fields
    /// sent: the rename never reached the replica. Now the live sync reads the record again
    /// once the sync up cleaned it.
    @Test func aChangeSkippedWhileDirtyArrivesAfterTheSyncUp() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(2)
            try await LiveSyncTests.goLive(harness)
            try await harness.store.updateLocally(["Industry": "Local"], entryId: try harness.localEntryId(ids[0]), in: "accounts")
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "Renamed by another user"])
            #expect(try await LiveSyncTests.eventually { try await LiveSyncTests.live(harness)?.pendingRereads == [ids[0]] })
            let options = SyncOptions(mergeMode: .overwrite, fieldlist: ["Industry"])
            #expect(try await harness.manager.syncUp(options: options, soupName: "accounts").status == .done)
            let record = try #require(try harness.localRecords()[ids[0]])
            #expect(record["Name"] == "Renamed by another user" && record["Industry"] == "Local" && record["__local__"] == false)
            #expect(try await LiveSyncTests.live(harness)?.pendingRereads.isEmpty == true)
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }
}
