import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Syncs that write the same soup run one at a time in submission order; other soups run at
/// the same time.
@Suite struct SchedulingTests {
    static let down = "SELECT Id, Name, LastModifiedDate FROM Account"

    /// Waits until the sync with this id is RUNNING (the earlier submission has its place).
    static func waitUntilRunning(_ manager: SyncManager, id: Int64) async throws {
        while try await manager.syncStatus(id: id)?.status != .running { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// Two sync downs of the `accounts` soup over a slow server: the first running, the second
    /// submitted (its place in the queue taken) behind it.
    static func twoRunsOfOneSoup(_ harness: SyncHarness, latency: Duration) async throws -> (
        first: Task<SyncState, any Error>, second: Task<SyncState, any Error>
    ) {
        try await harness.createAccounts(2)
        let manager = harness.manager
        await harness.localForce.faults.configure(rate: 0, latency: latency)
        let target = try SoqlSyncDownTarget(query: down)
        let first = Task { try await manager.syncDown(target: target, soupName: "accounts") }
        try await waitUntilRunning(manager, id: 1)
        let second = Task { try await manager.syncDown(target: target, soupName: "accounts") }
        while try await manager.syncStatus(id: 2) == nil { try await Task.sleep(for: .milliseconds(5)) }
        return (first, second)
    }

    /// A sync up and an OVERWRITE sync down of one soup, the second started while the first runs:
    /// the sync down starts only once the sync up has ended, so it brings the local edit back
    /// from the server instead of overwriting it halfway through the sync up.
    @Test func syncUpThenOverwriteSyncDownDoNotInterleave() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(3)
            let manager = harness.manager
            _ = try await manager.syncDown(target: try SoqlSyncDownTarget(query: Self.down), soupName: "accounts", name: "down")
            _ = try await harness.store.updateLocally(["Name": "Edited here"], entryId: try harness.localEntryId(ids[1]), in: "accounts")
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(300))
            let up = Task { try await manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts") }
            while try await manager.syncStatus(id: 2)?.status != .running { try await Task.sleep(for: .milliseconds(5)) }
            let down = try await manager.reSync(named: "down")
            let upState = try await up.value
            #expect(upState.isDone && down.isDone)
            #expect(down.startTime >= upState.endTime)
            let local = try harness.localRecords()
            #expect(local[ids[1]]?["Name"] == "Edited here" && local[ids[1]]?["__local__"] == false)
            let server = try await harness.client.retrieve("Account", id: ids[1], fields: ["Name"])
            #expect(server["Name"] == "Edited here")
        }
    }

    /// Syncs of different soups overlap.
    @Test func differentSoupsRunTogether() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(3)
            try harness.store.registerSoup(
                "others", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(300))
            let manager = harness.manager
            let target = try SoqlSyncDownTarget(query: Self.down)
            async let first = manager.syncDown(target: target, soupName: "accounts")
            async let second = manager.syncDown(target: target, soupName: "others")
            let (a, b) = try await (first, second)
            #expect(a.isDone && b.isDone)
            #expect(a.startTime < b.endTime && b.startTime < a.endTime)
        }
    }

    /// A run waiting for its soup when the manager is stopped ends STOPPED without sending anything.
    @Test func aWaitingRunStopsWithTheManager() async throws {
        try await withHarness { harness in
            let (first, second) = try await Self.twoRunsOfOneSoup(harness, latency: .milliseconds(300))
            let requestsBefore = harness.client.requestCount
            harness.manager.stop()
            let (a, b) = (try await first.value, try await second.value)
            #expect(a.isStopped || a.isDone)
            #expect(b.isStopped && b.totalSize == -1)
            // Only the first run's requests (at most its pages in flight) went out.
            #expect(harness.client.requestCount - requestsBefore <= 2)
        }
    }

    /// Cancelling a run that waits for its turn ends it STOPPED at once, while the run ahead of
    /// it goes on.
    @Test func aCancelledWaitingRunStopsAtOnce() async throws {
        try await withHarness { harness in
            let (first, second) = try await Self.twoRunsOfOneSoup(harness, latency: .milliseconds(400))
            second.cancel()
            let stopped = try await second.value
            #expect(stopped.isStopped)
            #expect(try await harness.manager.syncStatus(id: 1)?.isRunning == true)
            #expect(try await first.value.isDone)
        }
    }
}
