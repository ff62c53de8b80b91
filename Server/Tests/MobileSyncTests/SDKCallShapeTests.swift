import FastJSON
import Foundation
import MobileSyncSDKCompat
import SmartStore
import TestLocking
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// The Mobile SDK's call shapes, spelled as an SDK app spells them: they return at once and
/// report through callbacks while the sync runs in the background.
@Suite struct SDKCallShapeTests {
    /// The states a callback receives, and the final one when it comes.
    final class Updates: Sendable {
        private let state = Locked<(states: [SyncState], waiter: CheckedContinuation<SyncState, Never>?)>(([], nil))

        func record(_ update: SyncState) {
            let resume: CheckedContinuation<SyncState, Never>? = state.withLock { state in
                state.states.append(update)
                guard [.done, .failed, .stopped].contains(update.status), let waiter = state.waiter else { return nil }
                state.waiter = nil
                return waiter
            }
            resume?.resume(returning: update)
        }

        var all: [SyncState] { state.current.states }

        /// The first final state (DONE, FAILED, STOPPED).
        func final() async -> SyncState {
            await withCheckedContinuation { continuation in
                let done: SyncState? = state.withLock { state in
                    if let last = state.states.first(where: { [.done, .failed, .stopped].contains($0.status) }) { return last }
                    state.waiter = continuation
                    return nil
                }
                if let done { continuation.resume(returning: done) }
            }
        }
    }

    @Test func syncDownAndUpReturnAtOnceAndReportThroughOnUpdate() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(30)
            let updates = Updates()
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
            // The SDK's spelling: syncName:, a trailing onUpdate, no await.
            let first = try harness.manager.syncDown(
                target: target, options: SyncOptions(mergeMode: .overwrite), soupName: "accounts", syncName: "accounts"
            ) { state in updates.record(state) }
            // As the SDK's: RUNNING, and onUpdate had it before the call returned.
            #expect(first.status == .running && first.syncId > 0 && first.name == "accounts")
            #expect(updates.all.first?.status == .running && updates.all.first?.syncId == first.syncId)
            let last = await updates.final()
            #expect(last.status == .done && last.totalSize == 30)
            #expect(updates.all.first?.status == .running)
            #expect(try harness.localRecords().count == 30)
            // A duplicate name throws at once.
            #expect(throws: SyncError.duplicateName("accounts")) {
                try harness.manager.syncDown(target: target, soupName: "accounts", syncName: "accounts") { _ in }
            }

            let id = try #require(harness.localRecords().values.first?["_soupEntryId"]?.int64Value)
            try await harness.store.updateLocally(["Name": "Edited the SDK way"], entryId: id, in: "accounts")
            let upUpdates = Updates()
            let up = try harness.manager.syncUp(
                target: CollectionSyncUpTarget(), options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts", syncName: "up"
            ) { upUpdates.record($0) }
            #expect(up.status == .running && upUpdates.all.first?.status == .running)
            #expect(await upUpdates.final().status == .done)
            let query = try await harness.client.query("SELECT COUNT() FROM Account WHERE Name = 'Edited the SDK way'")
            #expect(query.totalSize == 1)
        }
    }

    @Test func reSyncReturnsTheStateAndRefusesARunningSync() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(5)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
            try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts")
            // Slow enough to be caught running.
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(400))
            let updates = Updates()
            // In async code Swift picks the async reSync; the SDK's form is what synchronous code
            // (an SDK app's callers) gets, as in this closure.
            let manager = harness.manager
            let current = try { try manager.reSync(named: "accounts") { updates.record($0) } }()
            #expect(current.status == .running && updates.all.first?.status == .running)
            // A second start is refused at once: the first is marked running before the call returns.
            #expect(throws: SyncError.stillRunning(id: Int64(current.syncId))) {
                _ = try { try manager.reSync(id: NSNumber(value: current.syncId)) { _ in } }()
            }
            guard case .failure(.notStarted(let error?)) = await Self.outcome(manager.publisher(for: "accounts")) else {
                Issue.record("the publisher of a sync running already did not fail with notStarted")
                return
            }
            #expect(error as? SyncError == .stillRunning(id: Int64(current.syncId)))
            #expect(await updates.final().status == .done)
            #expect(throws: SyncError.notFound("nope")) { _ = try { try manager.reSync(named: "nope") { _ in } }() }
        }
    }

    /// A stopped manager refuses the SDK's calls at once and saves nothing; stop, its questions
    /// and restart are plain calls, as in the SDK.
    @Test func aStoppedManagerRefusesAtOnce() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(4)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
            try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts")
            let manager = harness.manager
            let stopped: Bool = {
                manager.stop()
                return manager.isStopped() && !manager.isStopping()
            }()
            #expect(stopped)
            let before = try await harness.store.count(.all(soup: "syncs_soup", pageSize: 10))
            #expect(throws: SyncError.managerStopped("STOPPED")) {
                _ = try { try manager.syncDown(target: target, soupName: "accounts", syncName: "other") { _ in } }()
            }
            #expect(throws: SyncError.managerStopped("STOPPED")) {
                _ = try { try manager.syncUp(soupName: "accounts", syncName: "up") { _ in } }()
            }
            #expect(throws: SyncError.managerStopped("STOPPED")) { _ = try { try manager.reSync(named: "accounts") { _ in } }() }
            #expect(try await harness.store.count(.all(soup: "syncs_soup", pageSize: 10)) == before)
            guard case .failure(.notStarted(let error?)) = await Self.outcome(manager.publisher(for: "accounts")) else {
                Issue.record("the publisher of a stopped manager did not fail with notStarted")
                return
            }
            #expect(error as? SyncError == .managerStopped("STOPPED"))
            // The SDK's restart, without await: syncs are accepted again.
            let updates = Updates()
            try { try manager.restart(restartStoppedSyncs: true) { updates.record($0) } }()
            #expect(!manager.isStopped())
            let again = try { try manager.reSync(named: "accounts") { updates.record($0) } }()
            #expect(again.status == .running)
            #expect(await updates.final().status == .done)
        }
    }

    @Test func theSwiftExtensionShapes() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(6)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
            try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts")
            let result = await withCheckedContinuation { continuation in
                harness.manager.reSyncWithoutUpdates(named: "accounts") { continuation.resume(returning: $0) }
            }
            #expect((try? result.get())?.status == .done)
            let missing = await withCheckedContinuation { continuation in
                harness.manager.reSyncWithoutUpdates(named: "nope") { continuation.resume(returning: $0) }
            }
            guard case .failure(.notStarted(let error?)) = missing else {
                Issue.record("expected notStarted, got \(missing)")
                return
            }
            #expect(error as? SyncError == .notFound("nope"))
            // Two accounts deleted on the server: the ghost cleanup removes them, in each shape.
            try await harness.client.delete("Account", id: ids[0])
            let (status, removed) = await withCheckedContinuation { continuation in
                do {
                    try harness.manager.cleanResyncGhosts(forName: "accounts") { continuation.resume(returning: ($0, $1)) }
                } catch {
                    continuation.resume(returning: (.failed, 0))
                }
            }
            #expect(status == .done && removed == 1)
            try await harness.client.delete("Account", id: ids[1])
            let cleaned = await withCheckedContinuation { continuation in
                harness.manager.cleanGhosts(named: "accounts") { continuation.resume(returning: $0) }
            }
            #expect((try? cleaned.get()) == 1)
            #expect(throws: SyncError.notFound("nope")) { try harness.manager.cleanResyncGhosts(forName: "nope") { _, _ in } }
        }
    }

    @Test func thePublisherFailsOnAFailedSync() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(3)
            let good = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
            try await harness.manager.syncDown(target: good, soupName: "accounts", name: "good")
            // A query the server refuses: the sync ends FAILED.
            let bad = try SoqlSyncDownTarget(query: "SELECT Id, NoSuchField, LastModifiedDate FROM Account")
            let failedRun = try await harness.manager.syncDown(target: bad, soupName: "accounts", name: "bad")
            #expect(failedRun.status == .failed)
            #expect((try? await Self.outcome(harness.manager.publisher(for: "good")).get())?.status == .done)
            guard case .failure(.failed(let state?)) = await Self.outcome(harness.manager.publisher(for: "bad")) else {
                Issue.record("the publisher of a FAILED sync did not fail")
                return
            }
            #expect(state.status == .failed)
            // The other form publishes the FAILED state as a value.
            let value = await Self.outcome(harness.manager.finalStatePublisher(for: "bad"))
            #expect((try? value.get())?.status == .failed)
            #expect((try? await Self.outcome(harness.manager.cleanGhostsPublisher(for: "good")).get()) == 0)
        }
    }

    @Test func theSDKsStateNamesAreQuietAndTyped() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(3)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account", maxBatchSize: 500)
            let down = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "down")
            let up = try await harness.manager.createSyncUp(
                target: BatchSyncUpTarget(), options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts", name: "up")
            let manager = harness.manager
            #expect(
                manager.syncStatus(forName: "down")?.syncId == Int(down.id)
                    && manager.syncStatus(forId: NSNumber(value: up.id))?.name == "up")
            #expect(manager.syncStatus(forName: "nope") == nil && manager.syncStatus(forId: 999_999) == nil)
            #expect(manager.hasSync(forName: "up") && !manager.hasSync(forName: "nope"))
            // Typed targets from the stored state.
            let downTarget = try #require(manager.syncStatus(forName: "down")?.syncDownTarget as? SoqlSyncDownTarget)
            #expect(downTarget.query == target.query && downTarget.maxBatchSize == 500)
            #expect(manager.syncStatus(forName: "up")?.syncUpTarget is BatchSyncUpTarget)
            #expect(manager.syncStatus(forName: "down")?.syncUpTarget == nil)
            #expect(SyncState.getSyncsWithStatus(manager.store, status: .done).map(\.name) == ["down"])
            #expect(SyncState.getSyncsWithStatus(manager.store, status: .new).map(\.name) == ["up"])
            // Deleting: ours throws for a missing sync, the SDK's is quiet.
            manager.deleteSync(forName: "nope")
            await #expect(throws: SyncError.notFound("nope")) { try await manager.deleteSync(named: "nope") }
            manager.deleteSync(forName: "up")
            manager.deleteSync(forId: NSNumber(value: down.id))
            #expect(SyncState.getSyncsWithStatus(manager.store, status: .done).isEmpty && !manager.hasSync(forName: "up"))
        }
    }

    /// The single outcome of a future.
    static func outcome<Output: Sendable, Failure: Error>(_ future: Future<Output, Failure>) async -> Result<Output, Failure> {
        let box = CancellableBox()
        return await withCheckedContinuation { continuation in
            box.cancellable = future.sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { continuation.resume(returning: .failure(error)) }
                },
                receiveValue: { continuation.resume(returning: .success($0)) })
        }
    }
}

/// Keeps a subscription alive until its future completes.
final class CancellableBox: @unchecked Sendable {
    var cancellable: AnyCancellable?
}
