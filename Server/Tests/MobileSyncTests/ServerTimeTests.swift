import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Boundaries come from the server's clock: late commits are not missed, and a server ten
/// minutes ahead of or behind the client changes nothing.
@Suite struct ServerTimeTests {
    static let query = "SELECT Id, Name, LastModifiedDate FROM Account"

    static func names(_ harness: SyncHarness) throws -> Set<String> {
        Set(try harness.localRecords().values.compactMap { $0["Name"]?.stringValue })
    }

    /// A long transaction stamps its write before a concurrent one but commits after the
    /// resync that saw the concurrent one. With the SDK's boundary alone (window 0) the next
    /// resync misses it forever; the late-commit window reads it.
    @Test(arguments: [0, SoqlSyncDownTarget.defaultLateCommitWindow]) func resyncAfterALateCommit(window: Int64) async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(2)
            let target = try SoqlSyncDownTarget(query: Self.query, lateCommitWindowMilliseconds: window)
            #expect(try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts").status == .done)
            let faults = harness.localForce.faults
            // Held until the update and resync below are done, however loaded the machine.
            let (held, commit) = AsyncStream<Void>.makeStream()
            await faults.scheduleLateCommit(
                matching: { $0.method == "PATCH" && $0.segments.last == ids[0] }, until: { for await _ in held {} })
            let (arrived, arrival) = AsyncStream<Void>.makeStream()
            await faults.observe { request, moment in if moment == .received && request.segments.last == ids[0] { arrival.yield() } }
            let client = harness.client
            let slow = Task { try await client.update("Account", id: ids[0], fields: ["Name": "Committed late"]) }
            for await _ in arrived { break }
            try await harness.client.update("Account", id: ids[1], fields: ["Name": "Committed at once"])
            let first = try await harness.manager.reSync(named: "accounts")
            #expect(first.status == .done && first.totalSize == 1)
            commit.finish()
            try await slow.value
            let second = try await harness.manager.reSync(named: "accounts")
            #expect(second.status == .done)
            if window == 0 {
                #expect(try Self.names(harness) == ["Account 00000", "Committed at once"]) // the SDK's behaviour: missed
            } else {
                #expect(try Self.names(harness) == ["Committed late", "Committed at once"])
                // The window re-read the record seen before, unchanged: skipped, not counted.
                #expect(second.recordsFetched == 1, "\(second.recordsFetched)")
            }
        }
    }

    /// Re-reading the window never overwrites a local edit of a record the server did not change.
    @Test func lateCommitWindowKeepsLocalEdits() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(2)
            #expect(
                try await harness.manager.syncDown(
                    target: try SoqlSyncDownTarget(query: Self.query), soupName: "accounts", name: "accounts"
                ).status == .done)
            try await harness.store.updateLocally(["Name": "Edited here"], entryId: try harness.localEntryId(ids[0]), in: "accounts")
            let resync = try await harness.manager.reSync(named: "accounts") // OVERWRITE, the default
            #expect(resync.status == .done && resync.totalSize == 0)
            let local = try harness.localRecords()
            #expect(local[ids[0]]?["Name"] == "Edited here" && local[ids[0]]?["__local__"] == true)
        }
    }

    /// The window skips a record edited here that the server did not change, even when another
    /// sync wrote it last.
    @Test func lateCommitWindowKeepsLocalEditsOfAnotherSyncsRecords() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(2)
            for name in ["first", "second"] {
                #expect(
                    try await harness.manager.syncDown(target: try SoqlSyncDownTarget(query: Self.query), soupName: "accounts", name: name)
                        .status == .done)
            }
            try await harness.store.updateLocally(["Name": "Edited here"], entryId: try harness.localEntryId(ids[1]), in: "accounts")
            #expect(try await harness.manager.reSync(named: "first").status == .done)
            #expect(try harness.localRecords()[ids[1]]?["Name"] == "Edited here")
        }
    }

    /// A server 10 minutes ahead or behind: resync, lost-create reconciliation (and no
    /// adoption of a record made before the attempt) and ghost cleanup all hold.
    @Test(arguments: [600, -600]) func skewedServerClock(seconds: Int) async throws {
        try await withHarness(clockOffset: .seconds(seconds)) { harness in
            let ids = try await harness.createAccounts(3)
            #expect(
                try await harness.manager.syncDown(
                    target: try SoqlSyncDownTarget(query: Self.query), soupName: "accounts", name: "accounts"
                ).status == .done)
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "Changed"])
            let resync = try await harness.manager.reSync(named: "accounts")
            #expect(resync.status == .done && resync.totalSize == 1)
            #expect(try harness.localRecords()[ids[0]]?["Name"] == "Changed")

            // A lost create is adopted, not duplicated; an earlier record with the same values is not adopted.
            _ = try await harness.client.create("Account", fields: ["Name": "Offline"])
            try await Task.sleep(for: .milliseconds(1500))
            try await harness.store.createLocally(["Name": "Offline"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter) { $0.method == "POST" && $0.segments.last == "sobjects" }
            #expect(try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts").status == .failed)
            let settled = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(settled.status == .done && settled.failedRecordCount == 0)
            #expect(try await harness.client.query("SELECT COUNT() FROM Account WHERE Name = 'Offline'").totalSize == 2)

            try await harness.client.delete("Account", id: ids[1])
            #expect(try await harness.manager.cleanResyncGhosts(named: "accounts") == 1)
            #expect(try harness.localRecords()[ids[1]] == nil && harness.localRecords()[ids[2]] != nil)
        }
    }
}

/// Ghost cleanup is tracked like a sync: refused while its sync runs, stopped by `stop()`,
/// waited for by `isStopped`.
@Suite struct GhostCleanupTaskTests {
    static func syncedDown(_ harness: SyncHarness, accounts: Int) async throws -> [String] {
        let ids = try await harness.createAccounts(accounts)
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
        #expect(try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts").status == .done)
        return ids
    }

    @Test func refusedWhileItsSyncRunsAndTheSyncRefusedWhileItRuns() async throws {
        try await withHarness { harness in
            _ = try await Self.syncedDown(harness, accounts: 3)
            let manager = harness.manager
            let id = try #require(try await manager.syncStatus(named: "accounts")?.id)
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(400))
            let resync = Task { try await manager.reSync(named: "accounts") }
            while try await manager.syncStatus(named: "accounts")?.status != .running { try await Task.sleep(for: .milliseconds(20)) }
            await #expect(throws: SyncError.invalidSyncState("Cannot run cleanResyncGhosts:\(id): still running")) {
                try await manager.cleanResyncGhosts(named: "accounts")
            }
            #expect(try await resync.value.status == .done)
            let (asked, ask) = AsyncStream<Void>.makeStream()
            await harness.localForce.faults.observe { request, moment in
                if moment == .received && request.segments.last == "query" { ask.yield() }
            }
            let cleanup = Task { try await manager.cleanResyncGhosts(named: "accounts") }
            for await _ in asked { break } // the cleanup is asking the server
            await #expect(throws: SyncError.stillRunning(id: id)) { try await manager.reSync(named: "accounts") }
            #expect(try await cleanup.value == 0)
        }
    }

    @Test func stopStopsItAndIsStoppedWaitsForIt() async throws {
        try await withHarness { harness in
            let ids = try await Self.syncedDown(harness, accounts: 1200)
            for id in ids.prefix(10) { try await harness.client.delete("Account", id: id) }
            for id in ids.suffix(10) { try await harness.client.delete("Account", id: id) }
            let manager = harness.manager
            let queries = CallCounter()
            await harness.localForce.faults.observe { request, moment in
                guard moment == .received, request.segments.last == "query" else { return }
                if queries.next() == 1 { manager.stop() }
                try? await Task.sleep(for: .milliseconds(300))
            }
            let cleanup = Task { try await manager.cleanResyncGhosts(named: "accounts") }
            while !manager.isStopping { try await Task.sleep(for: .milliseconds(10)) }
            #expect(await !manager.isStopped) // the cleanup's page is still being read
            await #expect(throws: SyncError.stopped) { try await cleanup.value }
            #expect(await manager.isStopped)
            await harness.localForce.faults.observe(nil)
            // The merge deletes only once it has read every server page: a stopped cleanup deleted nothing.
            let local = try harness.localRecords()
            #expect(local.count == 1200)
            await #expect(throws: SyncError.managerStopped("STOPPED")) { try await manager.cleanResyncGhosts(named: "accounts") }
            try await manager.restart(restartStoppedSyncs: false)
            #expect(try await manager.cleanResyncGhosts(named: "accounts") == 20)
            #expect(try harness.localRecords().count == 1180)
        }
    }
}
