import FastJSON
import Foundation
import LocalForceTesting
import SalesforceREST
import TestSupport
import Testing

@testable import MobileSync
@testable import SmartStore

/// Syncs of one store in several processes: another process is played by a Python one holding
/// the store's locks (`fcntl.lockf`, as the operating system sees any holder).
@Suite struct OtherProcessTests {
    /// A file store with an `accounts` soup, a manager with `policy`, and three server accounts.
    static func world(_ client: RestClient, policy: SyncManager.OtherProcessPolicy = .default) async throws -> (
        SmartStore, SyncManager, URL
    ) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("other-process-\(UUID().uuidString)")
        let store = try SmartStore(path: folder.appendingPathComponent("store.sqlite").path)
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        _ = try await client.createRecords((0..<3).map { ["attributes": ["type": "Account"], "Name": .string("A\($0)")] })
        return (store, try SyncManager(store: store, client: client, otherProcesses: policy), folder)
    }

    static func holder(_ store: SmartStore, _ names: [String]) async throws -> LockHolder {
        try await LockHolder(path: SmartStore.lockFilePath(forStoreAt: store.path ?? ""), offsets: names.map(LockFile.offset(of:)))
    }

    static func target() throws -> SoqlSyncDownTarget { try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account") }

    @Test func waitsWhileAnotherProcessSyncsTheSoupShowingWaiting() async throws {
        try await withLocalForce { _, client in
            let (store, manager, folder) = try await Self.world(client)
            defer { try? FileManager.default.removeItem(at: folder) }
            let sync = try await manager.createSyncDown(target: try Self.target(), soupName: "accounts")
            let holder = try await Self.holder(store, ["soup:accounts"])
            let progress = SyncHarness.Progress()
            let running = Task { try await manager.reSync(id: sync.id) { progress.record($0) } }
            try await Self.until { progress.all.contains { $0.status == .waiting } }
            #expect(try SyncManager.syncStates(in: store).first?.status == .waiting)
            #expect(try await store.count(.all(soup: "accounts", pageSize: 1)) == 0)
            holder.release()
            let done = try await running.value
            #expect(done.status == .done && done.totalSize == 3)
            #expect(progress.trace.first == "WAITING 0 -1" && progress.trace.last == "DONE 100 3", "\(progress.trace)")
        }
    }

    @Test func failsFastOrAfterTheTimeoutLeavingTheStateAsItWas() async throws {
        try await withLocalForce { _, client in
            let (store, manager, folder) = try await Self.world(client, policy: .fail)
            defer { try? FileManager.default.removeItem(at: folder) }
            let sync = try await manager.createSyncDown(target: try Self.target(), soupName: "accounts")
            let holder = try await Self.holder(store, ["soup:accounts"])
            await #expect(throws: SyncError.self) { try await manager.reSync(id: sync.id) }
            do {
                _ = try await manager.reSync(id: sync.id)
            } catch let error as SyncError {
                guard case .runningInAnotherProcess(let what) = error else { throw error }
                #expect(what.contains("soup:accounts"), "\(error)")
            }
            #expect(try await manager.syncStatus(id: sync.id)?.status == .new)
            holder.release()
            #expect(try await manager.reSync(id: sync.id).status == .done)
        }
        try await withLocalForce { _, client in
            let (store, manager, folder) = try await Self.world(client, policy: .wait(timeout: .milliseconds(300)))
            defer { try? FileManager.default.removeItem(at: folder) }
            let sync = try await manager.syncDown(target: try Self.target(), soupName: "accounts")
            let holder = try await Self.holder(store, ["soup:accounts"])
            let started = ContinuousClock.now
            await #expect(throws: SyncError.self) { try await manager.reSync(id: sync.id) }
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            // It had shown WAITING; its state is as the last run left it again.
            #expect(try await manager.syncStatus(id: sync.id)?.status == .done)
            holder.release()
        }
    }

    @Test func aStopEndsTheWaitStopped() async throws {
        try await withLocalForce { _, client in
            let (store, manager, folder) = try await Self.world(client)
            defer { try? FileManager.default.removeItem(at: folder) }
            let sync = try await manager.createSyncDown(target: try Self.target(), soupName: "accounts")
            let holder = try await Self.holder(store, ["soup:accounts"])
            defer { holder.release() }
            let running = Task { try await manager.reSync(id: sync.id) }
            try await Self.until { try SyncManager.syncStates(in: store).first?.status == .waiting }
            manager.stop()
            #expect(try await running.value.status == .stopped)
            #expect(try await manager.syncStatus(id: sync.id)?.status == .stopped)
        }
    }

    /// Another process runs the sync itself: this one waits without touching its state (the
    /// other process owns it), and a new manager leaves it RUNNING. Once that process is
    /// killed, the next manager turns it STOPPED.
    @Test func aSyncRunningInALiveProcessKeepsItsStateUntilThatProcessDies() async throws {
        try await withLocalForce { _, client in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("other-process-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = try SmartStore(path: folder.appendingPathComponent("store.sqlite").path)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
            var id: Int64 = 0
            do {
                let manager = try SyncManager(store: store, client: client, otherProcesses: .wait(timeout: .milliseconds(200)))
                id = try await manager.createSyncDown(target: try Self.target(), soupName: "accounts").id
            }
            // The other process marks it RUNNING, as its run does, and holds its lock.
            let holder = try await Self.holder(store, ["sync:\(id)", "soup:accounts"])
            var running = try #require(try SyncManager.syncStates(in: store).first)
            running.status = .running
            try await store.upsert(running.document, in: SyncManager.soupName)
            do {
                let manager = try SyncManager(store: store, client: client, otherProcesses: .wait(timeout: .milliseconds(200)))
                #expect(try await manager.syncStatus(id: id)?.status == .running)
                await #expect(throws: SyncError.self) { try await manager.reSync(id: id) }
                #expect(try await manager.syncStatus(id: id)?.status == .running)
            }
            holder.kill()
            let manager = try SyncManager(store: store, client: client)
            #expect(try await manager.syncStatus(id: id)?.status == .stopped)
            #expect(try await manager.reSync(id: id).status == .done)
        }
    }

    /// Polls `condition` every 20 ms for up to 10 s.
    static func until(_ condition: () throws -> Bool) async throws {
        for _ in 0..<500 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("condition not met in 10 s")
    }
}
