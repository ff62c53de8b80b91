import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A process killed at any page or batch boundary, or while a request is in flight, leaves
/// files that reopen into a consistent state: the next run loses nothing and duplicates nothing.
@Suite(.serialized) struct CrashRecoveryTests {
    /// Snapshot the client and server files at every progress update of a 5-page sync down;
    /// reopen each, let the server change, resync: the soup equals the server.
    @Test func syncDownCrashAtEveryPageBoundary() async throws {
        let folder = temporaryFolder("crash-down")
        defer { try? FileManager.default.removeItem(at: folder) }
        let world = try await CrashWorld(folder: folder)
        try await world.createAccounts(1000, prefix: "Account")
        let manager = try SyncManager(store: world.store, client: world.client)
        let snapshots = CrashWorld.Snapshots()
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
        let sync = try await manager.syncDown(target: target, soupName: "accounts", name: "accounts") { state in
            if state.status == .running { snapshots.take(world, "\(state.progress)% of \(state.totalSize)") }
        }
        await world.stop()
        #expect(sync.status == .done && snapshots.errors.isEmpty, "\(snapshots.errors)")
        #expect(snapshots.all.map(\.label) == ["0% of -1", "0% of 1000", "20% of 1000", "40% of 1000", "60% of 1000", "80% of 1000"])

        for (index, snapshot) in snapshots.all.enumerated() {
            let reopened = try await CrashWorld(folder: folder.appendingPathComponent("run-\(index)"), reopening: snapshot)
            let manager = try SyncManager(store: reopened.store, client: reopened.client)
            #expect(try await manager.syncStatus(named: "accounts")?.status == .stopped, "\(snapshot.label)")
            // Meanwhile the server changed a record of the first page and one of the last, and gained one.
            let ids = try await reopened.serverNames().keys.sorted()
            try await reopened.client.update("Account", id: ids[0], fields: ["Name": "Changed first"])
            try await reopened.client.update("Account", id: ids[999], fields: ["Name": "Changed last"])
            _ = try await reopened.client.create("Account", fields: ["Name": "Added after the crash"])
            let resynced = try await manager.reSync(named: "accounts")
            #expect(resynced.status == .done, "\(snapshot.label): \(resynced.error)")
            let local = try reopened.localNames()
            let server = try await reopened.serverNames()
            #expect(server.count == 1001)
            #expect(local.names == server && local.entries == server.count, "crash at \(snapshot.label)")
            await reopened.stop()
        }
    }

    /// 100 offline updates, 50 deletes and 250 creates synced up 100 per batch. Snapshot the
    /// client and server when each request reaches the server (lost before processing), after
    /// it was processed (response lost), and at every progress update; reopen each and sync up
    /// again: the server ends with each record once, and the soup equals it.
    @Test func syncUpCrashAtEveryRequestAndBatch() async throws {
        let folder = temporaryFolder("crash-up")
        defer { try? FileManager.default.removeItem(at: folder) }
        let world = try await CrashWorld(folder: folder)
        try await world.createAccounts(300, prefix: "Server")
        let manager = try SyncManager(store: world.store, client: world.client)
        let down = try await manager.syncDown(
            target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts", name: "down")
        #expect(down.status == .done)
        let entries = try await world.store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 300))
        for (index, entry) in entries.enumerated() {
            guard let entryId = entry["_soupEntryId"]?.int64Value else { continue }
            if index < 100 {
                _ = try await world.store.updateLocally(["Name": .string("Edited \(index)")], entryId: entryId, in: "accounts")
            } else if index < 150 {
                _ = try await world.store.deleteLocally(entryId: entryId, in: "accounts")
            }
        }
        for index in 0..<250 {
            _ = try await world.store.createLocally(["Name": .string("Offline \(index)")], objectType: "Account", in: "accounts")
        }

        let snapshots = CrashWorld.Snapshots()
        await world.server.localForce.faults.observe { request, moment in
            guard request.segments.contains("composite") else { return }
            snapshots.take(world, "\(moment) \(request.method) \(request.segments.joined(separator: "/"))")
        }
        let target = CollectionSyncUpTarget(maxBatchSize: 100)
        let options = SyncOptions(fieldlist: ["Name"])
        let up = try await manager.syncUp(target: target, options: options, soupName: "accounts", name: "up") { state in
            if state.status == .running { snapshots.take(world, "progress \(state.progress)%") }
        }
        await world.server.localForce.faults.observe(nil)
        #expect(up.status == .done && up.failedRecordCount == 0 && snapshots.errors.isEmpty, "\(snapshots.errors)")
        let expected = try await world.serverNames()
        #expect(expected.count == 500)
        #expect(try world.localNames().names == expected)
        await world.stop()
        let labels = snapshots.all.map(\.label)
        #expect(
            labels.filter { $0.hasPrefix("received POST") }.count >= 3 && labels.filter { $0.hasPrefix("processed DELETE") }.count >= 1,
            "\(labels)")

        for (index, snapshot) in snapshots.all.enumerated() {
            let reopened = try await CrashWorld(folder: folder.appendingPathComponent("run-\(index)"), reopening: snapshot)
            // No wait for a create that may still land: the snapshot's server never ends the
            // request it had received (LostCreateTests covers the wait).
            let manager = try SyncManager(store: reopened.store, client: reopened.client, lostCreateWait: .zero)
            #expect(try await manager.syncStatus(named: "up")?.status == .stopped, "\(snapshot.label)")
            let resynced = try await manager.reSync(named: "up")
            #expect(resynced.status == .done && resynced.failedRecordCount == 0, "\(snapshot.label): \(resynced.error)")
            let server = try await reopened.serverNames()
            let local = try reopened.localNames()
            let serverNames = server.values.sorted()
            let expectedNames = expected.values.sorted()
            #expect(
                serverNames == expectedNames,
                "crash at \(snapshot.label): server has \(server.count), extra \(serverNames.difference(from: expectedNames).count) changes"
            )
            #expect(local.names == server && local.entries == server.count, "crash at \(snapshot.label)")
            await reopened.stop()
        }
    }

    /// LEAVE_IF_CHANGED: a crash after the server committed an update but before the client
    /// recorded it leaves the record dirty with its old date, while the server's moved. Each
    /// copy is reopened, some records are edited again, and synced up: nothing is taken for a
    /// conflict or left dirty, and the server ends with the last edits.
    @Test func leaveIfChangedUpdatesAfterACrash() async throws {
        let folder = temporaryFolder("crash-leave")
        defer { try? FileManager.default.removeItem(at: folder) }
        let world = try await CrashWorld(folder: folder)
        try await world.createAccounts(100, prefix: "Server")
        let manager = try SyncManager(store: world.store, client: world.client)
        let leave = SyncOptions(mergeMode: .leaveIfChanged)
        _ = try await manager.syncDown(
            target: try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account"), options: leave, soupName: "accounts",
            name: "down")
        let entries = try await world.store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 100))
        try await Task.sleep(for: .milliseconds(1050)) // a later second than the sync down's dates
        for (index, entry) in entries.enumerated() {
            guard let entryId = entry["_soupEntryId"]?.int64Value else { continue }
            if index < 60 {
                _ = try await world.store.updateLocally(["Name": .string("Edited \(index)")], entryId: entryId, in: "accounts")
            } else if index < 80 {
                _ = try await world.store.deleteLocally(entryId: entryId, in: "accounts")
            }
        }
        let snapshots = CrashWorld.Snapshots()
        await world.server.localForce.faults.observe { request, moment in
            guard moment == .processed, request.method != "GET", request.segments.contains("composite") else { return }
            snapshots.take(world, "\(moment) \(request.method) \(request.segments.joined(separator: "/"))")
        }
        let options = SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"])
        for (label, target) in [
            ("collection", CollectionSyncUpTarget(maxBatchSize: 25) as any SyncUpTarget), ("batch", BatchSyncUpTarget()),
        ] {
            _ = try await manager.createSyncUp(target: target, options: options, soupName: "accounts", name: "up-\(label)")
        }
        let up = try await manager.reSync(named: "up-collection")
        await world.server.localForce.faults.observe(nil)
        #expect(up.status == .done && up.failedRecordCount == 0 && snapshots.errors.isEmpty, "\(snapshots.errors)")
        #expect(snapshots.all.count >= 3, "\(snapshots.all.map(\.label))")
        await world.stop()

        for (index, snapshot) in snapshots.all.enumerated() {
            for name in ["up-collection", "up-batch"] {
                let reopened = try await CrashWorld(
                    folder: folder.appendingPathComponent("run-\(index)-\(name)"), reopening: snapshot)
                let manager = try SyncManager(store: reopened.store, client: reopened.client)
                try await Task.sleep(for: .milliseconds(1050)) // conditional updates compare whole seconds
                for entry in try await reopened.store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 100)).prefix(10) {
                    guard let entryId = entry["_soupEntryId"]?.int64Value, entry["__locally_deleted__"] != true else { continue }
                    _ = try await reopened.store.updateLocally(
                        ["Name": .string("Again \(entryId)")], entryId: entryId, in: "accounts")
                }
                let resynced = try await manager.reSync(named: name)
                #expect(resynced.status == .done && resynced.failedRecordCount == 0, "\(snapshot.label): \(resynced.error)")
                let dirty = try await reopened.store.dirtyEntryIds(soup: "accounts")
                #expect(dirty.isEmpty, "crash at \(snapshot.label), rerun by \(name): \(dirty.count) left dirty")
                let local = try reopened.localNames()
                #expect(local.names == (try await reopened.serverNames()), "crash at \(snapshot.label), rerun by \(name)")
                #expect(local.entries == 80)
                await reopened.stop()
            }
        }
    }

    /// Cancelling the task that runs a sync down, at each page boundary, stops it (STOPPED with
    /// the pages so far kept); a resync completes it without duplicates.
    @Test func cancellingAtEachPageBoundary() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(1000)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
            for page in 1...4 {
                try harness.store.clearSoup("accounts")
                let sync = try await harness.manager.createSyncDown(target: target, soupName: "accounts", name: "cancel-\(page)")
                let manager = harness.manager
                let cancelled = Task {
                    try await manager.reSync(id: sync.id) { state in
                        if state.progress >= page * 20 { withUnsafeCurrentTask { $0?.cancel() } }
                    }
                }
                let stopped = try await cancelled.value
                #expect(stopped.status == .stopped, "page \(page): \(stopped.status) \(stopped.error)")
                #expect(try harness.localRecords().count == page * 200)
                let resumed = try await manager.reSync(id: sync.id)
                #expect(resumed.status == .done)
                await #expect(try harness.store.count(.all(soup: "accounts", pageSize: 10)) == 1000)
            }
        }
    }
}
