import FastJSON
import Foundation
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A background round (what `BackgroundSyncScheduler` runs in a BGTaskScheduler task): sync ups
/// before sync downs, and when the time runs out the sync under way ends STOPPED, the rest does
/// not run, and the next round resumes and finishes.
@Suite struct BackgroundSyncRoundTests {
    @Test func anExpiredRoundStopsItsSyncsAndTheNextResumesThem() async throws {
        try await withHarness { harness in
            _ = try await harness.createAccounts(1_000)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
            _ = try await harness.manager.createSyncDown(target: target, soupName: "accounts", name: "down")
            _ = try await harness.manager.createSyncUp(
                target: CollectionSyncUpTarget(), options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts", name: "up")
            await expectNotFound { _ = try await BackgroundSyncRound(manager: harness.manager, names: ["down", "missing"]) }

            // Every request takes 150 ms: the round expires after the sync down's first page.
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(150))
            let round = try await BackgroundSyncRound(manager: harness.manager, names: ["down", "up"])
            #expect(round.names == ["up", "down"])
            let running = Task { await round.run() }
            #expect(try await LiveSyncTests.eventually { try await harness.store.count(.all(soup: "accounts", pageSize: 10)) >= 200 })
            round.expire()
            let expired = await running.value
            #expect(expired.expired && !expired.succeeded)
            #expect(expired.syncs.map(\.name) == ["up", "down"])
            #expect(expired.syncs.map(\.status) == ["DONE", "STOPPED"], "\(expired.syncs)")
            #expect(try await harness.manager.syncStatus(named: "down")?.status == .stopped)
            #expect(try await harness.store.count(.all(soup: "accounts", pageSize: 10)) < 1_000)

            // The next round restarts the stopped manager and resumes the sync down.
            await harness.localForce.faults.configure(rate: 0)
            let next = try await BackgroundSyncRound(manager: harness.manager, names: ["up", "down"]).run()
            #expect(next.succeeded && !next.expired, "\(next.syncs)")
            #expect(next.syncs.map(\.status) == ["DONE", "DONE"])
            #expect(try await harness.store.count(.all(soup: "accounts", pageSize: 10)) == 1_000)
            #expect(next.started <= next.ended && expired.ended <= next.started)

            // Expired before it began: nothing runs, and what did not run says so.
            let late = try await BackgroundSyncRound(manager: harness.manager, names: ["up", "down"])
            late.expire()
            let skipped = await late.run()
            #expect(skipped.expired && skipped.syncs.map(\.status) == ["NOT_RUN", "NOT_RUN"])
            #expect(skipped.syncs.allSatisfy { $0.error.contains("ran out") })
            _ = try await harness.manager.restart(restartStoppedSyncs: false)
        }
    }

    private func expectNotFound(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("a round of an unknown sync was made")
        } catch {
            #expect("\(error)".contains("missing"), "\(error)")
        }
    }
}
