import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A ghost cleanup never deletes a record the app edited while the cleanup read the server's
/// ids: the delete re-checks, in its transaction, that the entry is still clean (issue 47's
/// first finding).
@Suite struct GhostEditRaceTests {
    /// Both ways a cleanup deletes: by sorted merge (a SOQL target), and by asking the server
    /// about slices of local ids (the fallback, called here as a custom target would).
    @Test(arguments: [false, true])
    func anEditDuringTheCleanupKeepsTheRecord(useSlices: Bool) async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(5)
            let sync = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            #expect(sync.status == .done)
            // X and Y leave the server; the app edits X while the cleanup asks the server.
            _ = try await harness.client.deleteRecords([ids[1], ids[3]])
            let edited = try harness.localEntryId(ids[1])
            let store = harness.store
            let editing = TemplateSequenceTests.Once() // the first GET only
            await harness.localForce.faults.observe { request, moment in
                guard moment == .received, request.method == "GET", editing.claim() else { return }
                _ = try? await store.updateLocally(["Name": "Edited during the cleanup"], entryId: edited, in: "accounts")
            }
            let removed: Int
            if useSlices {
                let context = SyncContext(manager: harness.manager, onUpdate: nil, isCleanup: true)
                removed = try await context.deleteGhosts(soup: "accounts", syncId: sync.id) { local in
                    let answer = try await harness.client.query(
                        "SELECT Id FROM Account WHERE Id IN ('\(local.joined(separator: "','"))')")
                    return Set(try answer.records().compactMap { $0["Id"]?.stringValue })
                }
            } else {
                removed = try await harness.manager.cleanResyncGhosts(id: sync.id)
            }
            await harness.localForce.faults.observe(nil)
            #expect(editing.isClaimed)
            // Y is gone; X stays, dirty, with the edit, for the next sync up.
            #expect(removed == 1)
            let records = try harness.localRecords()
            #expect(records[ids[3]] == nil)
            #expect(records[ids[1]]?["Name"] == "Edited during the cleanup")
            #expect(records[ids[1]]?["__local__"] == true)
        }
    }
}
