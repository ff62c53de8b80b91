import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Lost responses, server errors and stops: nothing lost, nothing duplicated.
@Suite struct ReliabilityTests {
    static let mobileIdSchema: Schema = {
        do {
            return try SchemaFile.load(
                Data(#"{"fields": {"Account": [{"name": "Mobile_Id__c", "type": "string", "externalId": true, "unique": true}]}}"#.utf8))
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    static func createLocally(_ harness: SyncHarness, _ count: Int) throws {
        for index in 0..<count {
            try harness.store.createLocally(["Name": .string("Offline \(index)")], objectType: "Account", in: "accounts")
        }
    }

    static func serverCount(_ harness: SyncHarness) async throws -> Int {
        try await harness.client.query("SELECT COUNT() FROM Account").totalSize
    }

    @Test func idempotentCreatesSurviveALostResponse() async throws {
        try await withHarness(schema: Self.mobileIdSchema) { harness in
            try Self.createLocally(harness, 3)
            let target = CollectionSyncUpTarget(idempotencyFieldName: "Mobile_Id__c")
            // The first upsert is applied but its response is lost: the client retries it.
            await harness.localForce.faults.schedule(.dropAfter) { $0.method == "PATCH" }
            let sync = try await harness.manager.syncUp(target: target, options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(sync.status == .done)
            #expect(try await Self.serverCount(harness) == 3)
            // Every attempt lost: the sync fails, the records stay dirty, the next one settles them.
            try Self.createLocally(harness, 2)
            await harness.localForce.faults.schedule(.dropAfter, count: 4) { $0.method == "PATCH" }
            let failed = try await harness.manager.syncUp(target: target, options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(failed.status == .failed)
            #expect(try await Self.serverCount(harness) == 5)
            let settled = try await harness.manager.syncUp(target: target, options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(settled.status == .done && settled.totalSize == 2)
            #expect(try await Self.serverCount(harness) == 5)
            let local = try harness.localRecords()
            #expect(
                local.count == 5 && local.values.allSatisfy { $0["__local__"] == false && $0["Id"]?.stringValue?.hasPrefix("001") == true })
        }
    }

    @Test func lostCreateResponseIsReconciledOnTheNextSyncUp() async throws {
        try await withHarness { harness in
            try Self.createLocally(harness, 3)
            // Same values, another record.
            try await harness.store.createLocally(["Name": "Offline 0"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter) { $0.method == "POST" && $0.segments.last == "sobjects" }
            let failed = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(failed.status == .failed) // a POST that may have been applied is not retried
            #expect(try await Self.serverCount(harness) == 4)
            let settled = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(settled.status == .done)
            // Two local records share "Offline 0": the two server copies are adopted pairwise, none created again.
            let local = try harness.localRecords()
            #expect(local.count == 4)
            #expect(local.values.allSatisfy { $0["__local__"] == false && $0["__create_attempt__"] == nil })
            #expect(try await Self.serverCount(harness) == 4)
        }
    }

    /// A batch fails while the next one is already on the wire: what the server did is still
    /// recorded locally, and the next sync up sends only the rest.
    @Test func failedBatchWithTheNextInFlight() async throws {
        try await withHarness { harness in
            try Self.createLocally(harness, 450)
            let creates = CallCounter()
            await harness.localForce.faults.schedule(.serverError) { request in
                request.method == "POST" && request.segments.last == "sobjects" && creates.next() == 3
            }
            let target = CollectionSyncUpTarget(maxBatchSize: 100)
            let failed = try await harness.manager.syncUp(target: target, options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(failed.status == .failed)
            let server = try await Self.serverCount(harness)
            let clean = try await harness.store.count(
                .smart("select {accounts:_soupEntryId} from {accounts} where {accounts:__local__} = 0", pageSize: 1))
            #expect(server == clean && server >= 200 && server < 450, "server \(server), clean locally \(clean)")
            let settled = try await harness.manager.syncUp(target: target, options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(settled.status == .done && settled.totalSize == 450 - server, "\(settled.totalSize)")
            #expect(try await Self.serverCount(harness) == 450)
            #expect(try harness.localRecords().count == 450)
        }
    }

    @Test func serverErrorsAndDroppedConnectionsDuringSyncDown() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(1000)
            // First page: one 503. A later page: connection dropped, then a 500. Each is retried.
            await harness.localForce.faults.schedule(.unavailable) { $0.segments.last == "query" }
            await harness.localForce.faults.schedule(.dropBefore) { $0.segments.count == 5 && $0.segments[3] == "query" }
            await harness.localForce.faults.schedule(.serverError) { $0.segments.count == 5 && $0.segments[3] == "query" }
            let sync = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200),
                soupName: "accounts", name: "accounts")
            #expect(sync.status == .done && sync.totalSize == 1000, "\(sync.error)")
            #expect(try harness.localRecords().count == 1000)
            // Past the retry budget: FAILED, with the error; a later resync completes.
            await harness.localForce.faults.configure(rate: 1, kinds: [.unavailable])
            let failed = try await harness.manager.reSync(named: "accounts")
            #expect(failed.status == .failed && failed.error.contains("503"))
            await harness.localForce.faults.configure(rate: 0)
            #expect(try await harness.manager.reSync(named: "accounts").status == .done)
        }
    }

    /// Scenario 14: stop between pages, STOPPED with the boundary kept; restart resumes at `>=` the boundary.
    @Test func stopAndRestart() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(1000)
            let manager = harness.manager
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(40))
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
            let sync = try await manager.createSyncDown(target: target, soupName: "accounts", name: "accounts")
            let progress = SyncHarness.Progress()
            async let run = manager.reSync(id: sync.id) { state in
                progress.record(state)
                if state.progress >= 40 { manager.stop() }
            }
            let stopped = try await run
            #expect(stopped.status == .stopped)
            #expect(stopped.progress >= 40 && stopped.progress < 100)
            #expect(stopped.maxTimeStamp > 0)
            let partial = try harness.localRecords().count
            #expect(partial >= 400 && partial < 1000)
            #expect(await manager.isStopped)
            await #expect(throws: SyncError.managerStopped("STOPPED")) { _ = try await manager.reSync(id: sync.id) }
            #expect(try await manager.restart(restartStoppedSyncs: false).isEmpty)
            manager.stop()
            await harness.localForce.faults.configure(rate: 0)
            let restarted = try await manager.restart(restartStoppedSyncs: true)
            #expect(restarted.map(\.status) == [.done])
            #expect(restarted.first?.totalSize ?? 0 >= 1000 - partial)
            #expect(try harness.localRecords().count == 1000)
        }
    }
}
