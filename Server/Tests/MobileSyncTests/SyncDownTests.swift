import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

@Suite struct SyncDownTests {
    /// Scenario 11: query completed with Id/LastModifiedDate/order by; progress sequence; flags; maxTimeStamp.
    @Test func syncDownBasics() async throws {
        let target = try SoqlSyncDownTarget(query: "SELECT Name FROM Account")
        #expect(target.completedQuery == "SELECT Id, LastModifiedDate, Name FROM Account ORDER BY LastModifiedDate")
        #expect(target.isSortedByModificationDate)
        #expect(try SoqlSyncDownTarget(query: "SELECT Id FROM Account ORDER BY LastModifiedDate DESC").isSortedByModificationDate == false)
        try await withHarness { harness in
            try await harness.createAccounts(3)
            let progress = SyncHarness.Progress()
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts") { progress.record($0) }
            #expect(progress.trace == ["RUNNING 0 -1", "RUNNING 0 3", "DONE 100 3"])
            #expect(sync.status == .done && sync.progress == 100)
            let records = try harness.localRecords()
            #expect(records.count == 3)
            for record in records.values {
                #expect(record["__local__"] == false && record["__locally_created__"] == false && record["__sync_id__"] == .int(sync.id))
                #expect(record["attributes"]?["type"] == "Account")
            }
            let latest = records.values.compactMap { $0["LastModifiedDate"]?.stringValue }.max()
            #expect(sync.maxTimeStamp == latest.flatMap(SalesforceTime.parse))
            #expect(sync.startTime > 0 && sync.endTime >= sync.startTime)
        }
    }

    /// Several pages: progress per page, everything stored once.
    @Test func pagedSyncDown() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(450)
            let progress = SyncHarness.Progress()
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts") { progress.record($0) }
            #expect(progress.trace == ["RUNNING 0 -1", "RUNNING 0 450", "RUNNING 44 450", "RUNNING 88 450", "DONE 100 450"])
            #expect(try harness.localRecords().count == 450 && sync.status == .done)
        }
    }

    /// Scenario 12: merge modes on sync down.
    @Test func leaveIfChangedKeepsLocalEdits() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(4)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account")
            try await harness.manager.syncDown(target: target, soupName: "accounts")
            for id in ids.prefix(3) {
                try await harness.store.updateLocally(
                    ["Name": .string("local \(id)")], entryId: try harness.localEntryId(id), in: "accounts")
            }
            try await harness.manager.syncDown(target: target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts")
            var records = try harness.localRecords()
            for id in ids.prefix(3) {
                #expect(records[id]?["Name"] == .string("local \(id)") && records[id]?["__local__"] == true)
            }
            try await harness.manager.syncDown(target: target, options: SyncOptions(mergeMode: .overwrite), soupName: "accounts")
            records = try harness.localRecords()
            for id in ids.prefix(3) {
                #expect(records[id]?["Name"]?.stringValue?.hasPrefix("Account") == true && records[id]?["__local__"] == false)
            }
        }
    }

    /// Scenario 13: resync fetches only what changed, with `LastModifiedDate > maxTimeStamp`.
    @Test func reSyncFetchesChanges() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(10)
            let first = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"),
                soupName: "accounts", name: "accounts")
            for id in ids.prefix(3) { try await harness.client.update("Account", id: id, fields: ["Name": .string("changed \(id)")]) }
            let progress = SyncHarness.Progress()
            let again = try await harness.manager.reSync(named: "accounts") { progress.record($0) }
            #expect(progress.trace == ["RUNNING 0 -1", "RUNNING 0 3", "DONE 100 3"])
            #expect(again.maxTimeStamp > first.maxTimeStamp)
            let records = try harness.localRecords()
            for id in ids.prefix(3) { #expect(records[id]?["Name"] == .string("changed \(id)")) }
            let target = try SoqlSyncDownTarget(query: "SELECT Id FROM Account WHERE Name = 'a' OR Name = 'b'")
            #expect(
                target.query(after: 1_700_000_000_000).description
                    == "SELECT LastModifiedDate, Id FROM Account WHERE LastModifiedDate > 2023-11-14T22:13:20.000Z AND (Name = 'a' OR Name = 'b') ORDER BY LastModifiedDate"
            )
        }
    }

    /// Scenario 15: a sync left RUNNING by a crash is STOPPED when a manager opens the store.
    @Test func crashRecovery() async throws {
        try await withHarness { harness in
            let store = try SmartStore()
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
            do {
                let crashed = try SyncManager(store: store, client: harness.client)
                var state = try await crashed.createSyncDown(
                    target: try SoqlSyncDownTarget(query: "SELECT Id FROM Account"), soupName: "accounts", name: "s")
                state.status = .running
                try await store.upsert(state.document, in: "syncs_soup")
            }
            // The process "restarts": the first manager is gone, a new one opens the store.
            let reopened = try SyncManager(store: store, client: harness.client)
            #expect(try await reopened.syncStatus(named: "s")?.status == .stopped)
        }
    }

    /// One manager per store file: a second one is refused while the first lives (it would
    /// take the first's running syncs for crashed ones), `shared(for:client:)` hands out the one
    /// there is, also for another `SmartStore` instance on the same file.
    @Test func oneManagerPerStore() async throws {
        try await withHarness { harness in
            #expect(throws: SyncError.self) { try SyncManager(store: harness.store, client: harness.client) }
            #expect(try SyncManager.shared(for: harness.store, client: harness.client) === harness.manager)

            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("one-manager-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("store.sqlite").path
            let first = try SmartStore(path: path)
            let second = try SmartStore(path: path)
            do {
                let manager = try SyncManager.shared(for: first, client: harness.client)
                #expect(try SyncManager.shared(for: second, client: harness.client) === manager)
                #expect(throws: SyncError.self) { try SyncManager(store: second, client: harness.client) }
            }
            // Once the manager is gone, the store can have a new one.
            _ = try SyncManager(store: second, client: harness.client)
        }
    }

    /// Scenarios 16 and 17: running twice is refused; names are unique; unknown names are errors.
    @Test func namedSyncsAndConcurrentRuns() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(300)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
            let sync = try await harness.manager.createSyncDown(target: target, soupName: "accounts", name: "accounts")
            await #expect(throws: SyncError.duplicateName("accounts")) {
                _ = try await harness.manager.createSyncDown(target: target, soupName: "accounts", name: "accounts")
            }
            await #expect(throws: SyncError.notFound("nope")) { _ = try await harness.manager.reSync(named: "nope") }
            #expect(SyncError.stillRunning(id: 7).description == "Cannot run reSync 7 - sync is still running")
            // Slow the server so the first run is still going when the second starts.
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(150))
            let manager = harness.manager
            async let first = manager.reSync(id: sync.id)
            try await Task.sleep(for: .milliseconds(50))
            await #expect(throws: SyncError.stillRunning(id: sync.id)) { _ = try await manager.reSync(id: sync.id) }
            #expect(try await first.status == .done)
            await harness.localForce.faults.configure(rate: 0)
            #expect(try await manager.reSync(id: sync.id).status == .done)
            #expect(try await manager.hasSync(named: "accounts"))
            try await manager.deleteSync(named: "accounts")
            #expect(try await manager.hasSync(named: "accounts") == false)
        }
    }

    /// Scenario 18: ghosts of one sync, others untouched, dirty records kept.
    @Test func cleanResyncGhosts() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(5)
            let all = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account WHERE Name LIKE 'Account%'"),
                soupName: "accounts", name: "all")
            try await harness.store.createLocally(["Name": "local only"], objectType: "Account", in: "accounts")
            try await harness.store.updateLocally(["Name": "edited"], entryId: try harness.localEntryId(ids[4]), in: "accounts")
            try await harness.client.delete("Account", id: ids[0])
            try await harness.client.delete("Account", id: ids[4])
            try await harness.client.update("Account", id: ids[1], fields: ["Name": "Renamed out of the filter"])
            let removed = try await harness.manager.cleanResyncGhosts(id: all.id)
            #expect(removed == 2)
            let records = try harness.localRecords()
            #expect(records[ids[0]] == nil && records[ids[1]] == nil)
            #expect(records[ids[2]] != nil && records[ids[3]] != nil)
            #expect(records[ids[4]]?["Name"] == "edited") // dirty: kept
            #expect(records.values.contains { $0["Name"] == "local only" })
            #expect(try await harness.manager.syncStatus(id: all.id)?.status == .done)
            #expect(try await harness.manager.reSync(id: all.id).status == .done)
        }
    }

    /// Dirty detection works whatever the index of __local__ (or none).
    @Test(arguments: [SoupIndexType.string, .integer, .json1, nil])
    func dirtyDetectionAnyIndex(localIndex: SoupIndexType?) async throws {
        try await withHarness(localIndex: localIndex) { harness in
            try await harness.createAccounts(2)
            try await harness.manager.syncDown(target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            try await harness.store.createLocally(["Name": "New"], objectType: "Account", in: "accounts")
            let sync = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(sync.totalSize == 1 && sync.status == .done)
        }
    }
}
