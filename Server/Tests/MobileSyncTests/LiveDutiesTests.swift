import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A live sync keeps, in its stored state, the duties it still owes until they are done
/// (issue 47's sixth finding).
@Suite struct LiveDutiesTests {
    /// The replay id fell out of the server's retention window while a record was deleted on the
    /// server: the live sync owes a full resync and a ghost cleanup. The cleanup fails once;
    /// the retry still cleans (it forgot it before, and the deleted record stayed for good).
    @Test func aFailedCleanupIsOwedUntilItSucceeds() async throws {
        try await withHarness(streaming: StreamingOptions(retentionCount: 2)) { harness in
            let ids = try await harness.createAccounts(3)
            try await LiveSyncTests.goLive(harness, options: LiveSyncOptions(initialBackoff: .milliseconds(50)))
            try await harness.client.update("Account", id: ids[2], fields: ["Name": "Seen live"])
            #expect(try await LiveSyncTests.eventually { try await LiveSyncTests.live(harness)?.replayId != nil })
            try await harness.manager.stopLiveSync(named: "accounts")
            _ = try await harness.client.deleteRecords([ids[1]])
            for index in 0..<5 { try await harness.client.update("Account", id: ids[0], fields: ["Name": .string("Edit \(index)")]) }
            try await harness.localForce.streaming.applyRetention(now: harness.localForce.currentTime())
            // Every attempt of the cleanup's first request fails (the client retries a GET 4 times).
            await harness.localForce.faults.schedule(.serverError, count: 4) { request in
                request.method == "GET"
                    && request.parameter("q").map { $0.hasPrefix("SELECT Id FROM") && $0.contains("ORDER BY Id") } == true
            }
            try await harness.manager.startLiveSync(named: "accounts", options: LiveSyncOptions(initialBackoff: .milliseconds(50)))
            #expect(try await LiveSyncTests.eventually(within: .seconds(30)) { try harness.localRecords()[ids[1]] == nil })
            #expect(try await LiveSyncTests.eventually { try await LiveSyncTests.live(harness)?.status == .live })
            let info = try #require(try await LiveSyncTests.live(harness))
            #expect(
                !info.owesFullResync && !info.owesGhostCleanup && info.note == "Done what lost events left owed: a ghost cleanup", "\(info)"
            )
            #expect(try harness.localRecords()[ids[0]]?["Name"] == "Edit 4")
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    /// Owed duties survive a stop and a restart of the live sync.
    @Test func dutiesAreStoredWithTheSyncState() throws {
        let info = LiveSyncInfo(status: .connecting, owesFullResync: true, owesGhostCleanup: true)
        #expect(LiveSyncInfo(json: info.json) == info)
        #expect(LiveSyncInfo(json: LiveSyncInfo().json).owesGhostCleanup == false)
    }
}
