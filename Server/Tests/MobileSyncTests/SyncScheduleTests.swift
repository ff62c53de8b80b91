import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import TestLocking
import Testing

@testable import LocalForce
@testable import MobileSync

/// The scheduler: named syncs run periodically, sync ups first, with backoff after failures,
/// paused while the manager is stopped.
@Suite struct SyncScheduleTests {
    @Test func syncUpsRunBeforeSyncDownsWithBackoffAndPauses() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(1)
            try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts", name: "down")
            _ = try await harness.manager.createSyncUp(
                target: CollectionSyncUpTarget(), options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts", name: "up")
            _ = try await harness.store.modify(try harness.localEntryId(ids[0]), in: "accounts") { record in
                record["Name"] = "Edited locally"
                record["__local__"] = true
                record["__locally_updated__"] = true
            }
            let order = StatusTrail()
            let updates = await harness.manager.updates()
            let watcher = Task {
                for await state in updates where state.status == .running && state.progress == 0 { order.append(state.name ?? "") }
            }
            let schedule = try await harness.manager.schedule(["down", "up"], every: .milliseconds(150))
            #expect(schedule.names == ["up", "down"])
            #expect(try await LiveSyncTests.eventually { order.value.count >= 2 })
            #expect(Array(order.value.prefix(2)) == ["up", "down"])
            let server = try await harness.client.query("SELECT Name FROM Account WHERE Id = '\(ids[0])'").records().first
            #expect(server?["Name"] == "Edited locally")
            #expect(try harness.localRecords()[ids[0]]?["__local__"] == false)

            // Failures back off: the wait doubles per failed run, and is back to the interval
            // after a success.
            let failing = Failing()
            await harness.localForce.faults.schedule(.serverError, count: 1_000_000) { _ in failing.on }
            #expect(
                try await LiveSyncTests.eventually {
                    await harness.manager.syncSchedules.first?.consecutiveFailures ?? 0 >= 2
                })
            let backingOff = try #require(await harness.manager.syncSchedules.first)
            #expect(backingOff.lastError.contains("down: "), "\(backingOff.lastError)")
            #expect(backingOff.nextDelay >= .milliseconds(600))
            failing.on = false
            #expect(
                try await LiveSyncTests.eventually {
                    await harness.manager.syncSchedules.first?.consecutiveFailures == 0
                })

            // Paused while the manager is stopped, running again after its restart.
            harness.manager.stop()
            let paused = try await harness.manager.syncStatus(named: "down")?.endTime
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await harness.manager.syncStatus(named: "down")?.endTime == paused)
            try await harness.manager.restart(restartStoppedSyncs: false)
            #expect(try await LiveSyncTests.eventually { try await harness.manager.syncStatus(named: "down")?.endTime != paused })
            await harness.manager.cancelSchedule(schedule.id)
            #expect(await harness.manager.syncSchedules.isEmpty)
            watcher.cancel()
        }
    }
}

/// A switch the fault injection reads.
final class Failing: Sendable {
    private let value = Locked(true)
    var on: Bool {
        get { value.current }
        set { value.withLock { $0 = newValue } }
    }
}
