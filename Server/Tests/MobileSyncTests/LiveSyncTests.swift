import FastJSON
import Foundation
import LocalForceHTTP
import SalesforceREST
import SmartStore
import TestLocking
import Testing

@testable import LocalForce
@testable import MobileSync

/// Live syncs against LocalForce over HTTP: server changes reach the store within a second,
/// from the change events themselves where they can, by a resync where they cannot; never
/// over a dirty record; resumed after a restart from the last event applied; reconnected after
/// a lost connection; polling where the server has no Streaming API.
@Suite struct LiveSyncTests {
    static let query = "SELECT Id, Name, Industry, LastModifiedDate FROM Account"

    /// Waits (20 ms steps) until `condition` holds; false after `timeout`. Generous: the whole
    /// suite runs in parallel on two cores, where a step can wait seconds for a thread. How
    /// fast changes arrive is measured by `msync-bench live`, not asserted here.
    static func eventually(within timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    static func live(_ harness: SyncHarness, _ name: String = "accounts") async throws -> LiveSyncInfo? {
        try await harness.manager.syncStatus(named: name)?.live
    }

    /// Creates the named sync down, runs it once, and starts it live; returns once it is live.
    static func goLive(_ harness: SyncHarness, query: String = query, options: LiveSyncOptions = LiveSyncOptions()) async throws {
        try await harness.manager.syncDown(target: try SoqlSyncDownTarget(query: query), soupName: "accounts", name: "accounts")
        try await harness.manager.startLiveSync(named: "accounts", options: options)
        #expect(try await eventually { try await live(harness)?.status == .live })
    }

    @Test func serverChangesReachTheStoreWithinASecond() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(2)
            let statuses = StatusTrail()
            let updates = await harness.manager.updates()
            let watcher = Task {
                for await state in updates where state.name == "accounts" {
                    if let status = state.live?.status.rawValue { statuses.append(status) }
                }
            }
            try await Self.goLive(harness)
            #expect(try harness.localRecords().count == 2)

            // Create, update, delete on the server: each reaches the store, from its event.
            var started = ContinuousClock.now
            let created = try await harness.client.create("Account", fields: ["Name": "Live One", "Industry": "Energy"])
            #expect(try await Self.eventually { try harness.localRecords()[created]?["Name"] == "Live One" })
            let createLatency = started.duration(to: .now)
            started = ContinuousClock.now
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "Renamed"])
            #expect(try await Self.eventually { try harness.localRecords()[ids[0]]?["Name"] == "Renamed" })
            let updateLatency = started.duration(to: .now)
            try await harness.client.delete("Account", id: ids[1])
            #expect(try await Self.eventually { try harness.localRecords()[ids[1]] == nil })
            // Far under the long poll's 110 s: the events woke it (the benchmark measures milliseconds).
            #expect(createLatency < .seconds(20) && updateLatency < .seconds(20), "\(createLatency) \(updateLatency)")

            // Applied from the events: the record is complete and clean, its date the server's.
            let record = try #require(try harness.localRecords()[created])
            #expect(record["Industry"] == "Energy" && record["__local__"] == false)
            #expect(record["attributes"]?["type"] == "Account")
            let server = try await harness.client.query("SELECT LastModifiedDate FROM Account WHERE Id = '\(ids[0])'").records().first
            #expect(try harness.localRecords()[ids[0]]?["LastModifiedDate"] == server?["LastModifiedDate"])
            let info = try #require(try await Self.live(harness))
            #expect(info.appliedChanges == 3)
            #expect(info.resyncs == 1) // the catch-up when it went live; none since
            #expect(info.replayId != nil)

            try await harness.manager.stopLiveSync(named: "accounts")
            #expect(try await Self.live(harness)?.status == .stopped)
            #expect(try await Self.eventually { statuses.value.last == "STOPPED" })
            watcher.cancel()
            #expect(statuses.value == ["CONNECTING", "CATCHING_UP", "LIVE", "STOPPED"])
            // Stopped: server changes wait for the next run.
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "While stopped"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(try harness.localRecords()[ids[0]]?["Name"] == "Renamed")
        }
    }

    @Test func theAppsLiveQueriesUpdateOnEveryAppliedEvent() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(1)
            try await Self.goLive(harness)
            let stream = harness.store.observe(
                smartSql: "select {accounts:Name} from {accounts} where {accounts:Id} = '\(ids[0])'", pageSize: 1)
            let (seen, see) = AsyncStream<String>.makeStream()
            let watcher = Task {
                for try await rows in stream { see.yield(rows.first?.arrayValue?.first?.stringValue ?? "") }
            }
            // Each name the query showed, in order (a wait that never ends fails on the watchdog).
            let watchdog = Task {
                try await Task.sleep(for: .seconds(120))
                see.finish()
            }
            var names = seen.makeAsyncIterator()
            #expect(await names.next() == "Account 00000")
            for name in ["First", "Second", "Third"] {
                try await harness.client.update("Account", id: ids[0], fields: ["Name": .string(name)])
                #expect(await names.next() == name)
            }
            watchdog.cancel()
            watcher.cancel()
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    @Test func aDirtyRecordIsNeverOverwrittenByAnEvent() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(2)
            try await Self.goLive(harness)
            let changes = await harness.manager.liveChanges()
            for id in ids {
                let entry = try harness.localEntryId(id)
                _ = try await harness.store.modify(entry, in: "accounts") { record in
                    record["Name"] = "Local edit"
                    record["__local__"] = true
                    record["__locally_updated__"] = true
                }
            }
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "Server edit"])
            try await harness.client.delete("Account", id: ids[1])
            let outcomes = Task {
                var outcomes: [LiveChange.Outcome] = []
                for await change in changes {
                    outcomes.append(change.outcome)
                    if outcomes.count == 2 { break }
                }
                return outcomes
            }
            #expect(try await Self.eventually { try await Self.live(harness)?.skippedDirty == 2 })
            try await Task.sleep(for: .milliseconds(100))
            outcomes.cancel()
            #expect(await outcomes.value == [.skippedDirty, .skippedDirty])
            let local = try harness.localRecords()
            #expect(local[ids[0]]?["Name"] == "Local edit" && local[ids[1]]?["Name"] == "Local edit")
            #expect(try await Self.live(harness)?.skippedDirty == 2)
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    @Test func aFilteredQueryResyncsAndBurstsCoalesce() async throws {
        try await withHarness { harness in
            try await Self.goLive(harness, query: "SELECT Id, Name, Owner.Name FROM Account WHERE Industry = 'Energy'")
            let before = try await Self.live(harness)?.resyncs ?? 0
            // One collection request: 20 creates in one transaction, delivered together.
            let records: [JSONValue] = (0..<20).map {
                ["attributes": ["type": "Account"], "Name": .string("Burst \($0)"), "Industry": $0 % 2 == 0 ? "Energy" : "Banking"]
            }
            _ = try await harness.client.createRecords(records)
            #expect(try await Self.eventually { try await Self.live(harness)?.resyncs ?? 0 > before })
            #expect(try harness.localRecords().count == 10)
            let local = try harness.localRecords()
            #expect(local.values.allSatisfy { $0["Owner"]?["Name"] == "API User" })
            try await Task.sleep(for: .milliseconds(200))
            let after = try await Self.live(harness)?.resyncs ?? 0
            #expect(after - before == 1, "one resync for the burst, not one per event")
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    @Test func aRestartResumesFromTheLastEventApplied() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(3)
            try await Self.goLive(harness)
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "First"])
            #expect(try await Self.eventually { try harness.localRecords()[ids[0]]?["Name"] == "First" })
            #expect(try await Self.eventually { try await Self.live(harness)?.appliedChanges == 1 })
            try await harness.manager.stopLiveSync(named: "accounts")
            let stopped = try #require(try await Self.live(harness))
            #expect(stopped.replayId != nil)

            // Changes while no live sync runs (the app was killed, say).
            try await harness.client.update("Account", id: ids[1], fields: ["Name": "Second"])
            let created = try await harness.client.create("Account", fields: ["Name": "Third"])
            try await harness.client.delete("Account", id: ids[2])

            try await harness.manager.startLiveSync(named: "accounts")
            #expect(try await Self.eventually { try harness.localRecords()[ids[2]] == nil })
            let local = try harness.localRecords()
            #expect(local[ids[1]]?["Name"] == "Second" && local[created]?["Name"] == "Third")
            #expect(local.count == 3)
            // Its progress is recorded just after the store write.
            #expect(try await Self.eventually { try await Self.live(harness)?.appliedChanges == stopped.appliedChanges + 3 })
            let resumed = try #require(try await Self.live(harness))
            #expect(resumed.resyncs == stopped.resyncs, "resumed from its replay id: no catch-up resync")
            #expect(resumed.appliedChanges == stopped.appliedChanges + 3, "each missed change applied once")
            #expect((resumed.replayId ?? 0) > (stopped.replayId ?? 0))
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    @Test func aReplayIdTooOldFallsBackToAFullResync() async throws {
        try await withHarness(streaming: StreamingOptions(retentionCount: 2)) { harness in
            let ids = try await harness.createAccounts(2)
            try await Self.goLive(harness)
            try await harness.client.update("Account", id: ids[1], fields: ["Name": "Seen live"])
            #expect(try await Self.eventually { try await Self.live(harness)?.replayId != nil })
            try await harness.manager.stopLiveSync(named: "accounts")
            for index in 0..<5 { try await harness.client.update("Account", id: ids[0], fields: ["Name": .string("Edit \(index)")]) }
            try await harness.localForce.streaming.applyRetention(now: harness.localForce.currentTime())
            try await harness.manager.startLiveSync(named: "accounts")
            #expect(try await Self.eventually { try await Self.live(harness)?.status == .live })
            let info = try #require(try await Self.live(harness))
            #expect(info.note.contains("outside the server's retention window: full resync"), "\(info.note)")
            #expect(try harness.localRecords()[ids[0]]?["Name"] == "Edit 4")
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    @Test func aLostConnectionReconnectsAndMissesNothing() async throws {
        // A file: the org outlives its first server, as a real one outlives a connection.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("org.sqlite").path
        // Short long polls: a stopping server waits for the ones in flight.
        let streaming = StreamingOptions(longPollTimeout: .seconds(2))
        let localForce = try await LocalForce(database: try SQLiteDatabase(path: path), token: SyncHarness.token, streaming: streaming)
        var server = try await LocalForceServer.start(localForce)
        let port = server.baseURL.port ?? 0
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        let client = RestClient(instanceURL: server.baseURL, tokenProvider: StaticAccessToken(SyncHarness.token))
        let manager = try SyncManager(store: store, client: client)
        try await manager.syncDown(target: try SoqlSyncDownTarget(query: Self.query), soupName: "accounts", name: "accounts")
        try await manager.startLiveSync(
            named: "accounts", options: LiveSyncOptions(initialBackoff: .milliseconds(100), maximumBackoff: .milliseconds(400)))
        #expect(try await Self.eventually { try await manager.syncStatus(named: "accounts")?.live?.status == .live })
        let first = try await client.create("Account", fields: ["Name": "Before the loss"])
        #expect(
            try await Self.eventually {
                try await store.query(.exact(soup: "accounts", path: "Id", key: .string(first), pageSize: 1)).count == 1
            })
        let resyncs = try await manager.syncStatus(named: "accounts")?.live?.resyncs
        // The server goes away mid long poll; changes are made meanwhile; it comes back as a
        // new process on the same database, which knows nothing of the client.
        await server.stop()
        let restarted = try await LocalForce(database: try SQLiteDatabase(path: path), token: SyncHarness.token, streaming: streaming)
        let ids = try await restarted.insert([["Name": "While down 1"], ["Name": "While down 2"]], of: "Account")
        #expect(try await Self.eventually { try await manager.syncStatus(named: "accounts")?.live?.status == .connecting })
        server = try await LocalForceServer.start(restarted, port: port)
        #expect(
            try await Self.eventually {
                try await store.query(.exact(soup: "accounts", path: "Id", key: .string(ids[1]), pageSize: 1)).count == 1
            })
        #expect(try await store.query(.exact(soup: "accounts", path: "Id", key: .string(ids[0]), pageSize: 1)).count == 1)
        #expect(try await manager.syncStatus(named: "accounts")?.live?.status == .live)
        #expect(try await manager.syncStatus(named: "accounts")?.live?.resyncs == resyncs, "replayed, not resynced")
        await manager.stopLiveSync(id: try #require(try await manager.syncStatus(named: "accounts")?.id))
        await server.stop()
    }

    @Test func withoutAStreamingAPIItPolls() async throws {
        try await withHarness(streaming: StreamingOptions(servesStreamingAPI: false)) { harness in
            try await harness.manager.syncDown(target: try SoqlSyncDownTarget(query: Self.query), soupName: "accounts", name: "accounts")
            try await harness.manager.startLiveSync(named: "accounts", options: LiveSyncOptions(pollInterval: .milliseconds(200)))
            #expect(try await Self.eventually { try await Self.live(harness)?.status == .polling })
            #expect(try await Self.live(harness)?.note.contains("HTTP 404") == true)
            let id = try await harness.client.create("Account", fields: ["Name": "Polled"])
            #expect(try await Self.eventually { try harness.localRecords()[id] != nil })
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }

    @Test func configuredLiveSyncsStartAndStopWithTheManager() async throws {
        try await withHarness { harness in
            try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: Self.query), options: SyncOptions(live: true), soupName: "accounts", name: "accounts")
            #expect(try await harness.manager.startLiveSyncs() == ["accounts"])
            #expect(try await Self.eventually { try await Self.live(harness)?.status == .live })
            harness.manager.stop()
            #expect(try await Self.eventually { try await Self.live(harness)?.status == .stopped })
            try await harness.manager.restart(restartStoppedSyncs: false)
            #expect(try await Self.eventually { try await Self.live(harness)?.status == .live })
            let id = try await harness.client.create("Account", fields: ["Name": "After restart"])
            #expect(try await Self.eventually { try harness.localRecords()[id] != nil })
            // The option survives the store (usersyncs.json's "live": true).
            #expect(try await harness.manager.syncStatus(named: "accounts")?.options.live == true)
            try await harness.manager.stopLiveSync(named: "accounts")
        }
    }
}

/// The distinct live statuses seen, in order.
final class StatusTrail: Sendable {
    private let trail = Locked<[String]>([])
    var value: [String] { trail.current }
    func append(_ status: String) { trail.withLock { if $0.last != status { $0.append(status) } } }
}

/// Salesforce's nested compound fields, as the applier flattens them.
@Suite struct LiveCompoundFieldTests {
    @Test func compoundNamesAndAddressesAreFlattened() {
        let flat = LiveEventApplier.flattened([
            "Name": ["FirstName": "Ann", "LastName": "Lee"], "BillingAddress": ["City": "Paris", "PostalCode": "75001"],
            "Phone": "555", "Email": .null,
        ])
        #expect(
            flat == [
                "FirstName": "Ann", "LastName": "Lee", "BillingCity": "Paris", "BillingPostalCode": "75001", "Phone": "555", "Email": .null,
            ])
        #expect(LiveEventApplier.flattened(["Geo__c": ["x": 1]]) == nil)
        #expect(LiveEventApplier.flattenedName("Name.LastName") == "LastName")
        #expect(LiveEventApplier.flattenedName("MailingAddress.Street") == "MailingStreet")
        #expect(LiveEventApplier.flattenedName("Phone") == "Phone")
    }
}
