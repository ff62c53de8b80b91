public import Foundation
public import MobileSync
import SmartStore

/// The Mobile SDK's call shapes (`SFMobileSyncSyncManager` in Swift): each returns at once and
/// reports through a callback, the sync running in the background. They sit beside the `async`
/// forms, which return the final state and are what new code should use; an SDK app's calls
/// compile unchanged (see <doc:PortingFromTheMobileSDK>).
///
/// As the SDK's, they start the sync before they return: the state they return is RUNNING, and
/// `onUpdate` has had it already; what would keep the run from starting (a stopped manager, the
/// sync running already) is thrown at once, and a stopped manager saves nothing. The RUNNING
/// state is not saved by the call itself: the run saves it once it has the sync's lock (another
/// process may be running the sync), so until then the store still shows the state before.
extension SyncManager {
    /// Creates a sync down, starts it in the background and returns it RUNNING; every later
    /// state (its progress, then DONE, FAILED or STOPPED) goes to `onUpdate`.
    ///
    /// - Throws: at once, `SyncError.managerStopped(_:)` (nothing saved), or what creating the
    ///   sync throws (a duplicate name, an unknown soup).
    @discardableResult
    public nonisolated func syncDown(
        target: any SyncDownTarget, options: SyncOptions = SyncOptions(), soupName: String, syncName: String?,
        onUpdate: @escaping @Sendable (SyncState) -> Void
    ) throws -> SyncState {
        let state = MobileSync.SyncState(kind: .syncDown, name: syncName, target: target.json, options: options, soupName: soupName)
        return try startNew(state, soups: target.additionalSoupNames, onUpdate: onUpdate) { manager, sync, updates in
            try await manager.runClaimed(sync, down: target, onUpdate: updates)
        }
    }

    /// Creates a sync up, starts it in the background and returns it RUNNING; later states go
    /// to `onUpdate` (see `syncDown(target:options:soupName:syncName:onUpdate:)`).
    @discardableResult
    public nonisolated func syncUp(
        target: any SyncUpTarget = CollectionSyncUpTarget(), options: SyncOptions = SyncOptions(), soupName: String,
        syncName: String?, onUpdate: @escaping @Sendable (SyncState) -> Void
    ) throws -> SyncState {
        let state = MobileSync.SyncState(kind: .syncUp, name: syncName, target: target.json, options: options, soupName: soupName)
        return try startNew(state, soups: target.additionalSoupNames, onUpdate: onUpdate) { manager, sync, updates in
            try await manager.runClaimed(sync, up: target, onUpdate: updates)
        }
    }

    /// Creates an unnamed sync down with OVERWRITE and starts it, as
    /// `syncDown(target:options:soupName:syncName:onUpdate:)`; nil (logged) when it cannot start.
    @discardableResult
    public nonisolated func syncDown(
        target: any SyncDownTarget, soupName: String, onUpdate: @escaping @Sendable (SyncState) -> Void
    ) -> SyncState? {
        syncDown(target: target, options: SyncOptions(mergeMode: .overwrite), soupName: soupName, onUpdate: onUpdate)
    }

    /// Creates an unnamed sync down and starts it; nil (logged) when it cannot start.
    @discardableResult
    public nonisolated func syncDown(
        target: any SyncDownTarget, options: SyncOptions, soupName: String, onUpdate: @escaping @Sendable (SyncState) -> Void
    ) -> SyncState? {
        quietly { try syncDown(target: target, options: options, soupName: soupName, syncName: nil, onUpdate: onUpdate) }
    }

    /// Creates an unnamed sync up with sObject Collections and starts it; nil (logged) when it
    /// cannot start. (The SDK's default target sends one request per record: same outcome, more
    /// round trips.)
    @discardableResult
    public nonisolated func syncUp(options: SyncOptions, soupName: String, onUpdate: @escaping @Sendable (SyncState) -> Void) -> SyncState?
    {
        syncUp(target: CollectionSyncUpTarget(), options: options, soupName: soupName, onUpdate: onUpdate)
    }

    /// Creates an unnamed sync up and starts it; nil (logged) when it cannot start.
    @discardableResult
    public nonisolated func syncUp(
        target: any SyncUpTarget, options: SyncOptions, soupName: String, onUpdate: @escaping @Sendable (SyncState) -> Void
    ) -> SyncState? {
        quietly { try syncUp(target: target, options: options, soupName: soupName, syncName: nil, onUpdate: onUpdate) }
    }

    /// Runs an existing sync again in the background and returns it RUNNING; its states go to
    /// `onUpdate`.
    ///
    /// - Throws: at once, `SyncError.notFound(_:)`, `SyncError.managerStopped(_:)`, or
    ///   `SyncError.stillRunning(id:)` when it runs in this manager.
    @discardableResult
    public nonisolated func reSync(id syncId: NSNumber, onUpdate: @escaping @Sendable (SyncState) -> Void) throws -> SyncState {
        guard let sync = SyncState.byId(syncId, store: store)?.state else { throw SyncError.notFound(syncId.stringValue) }
        return try start(sync, onUpdate: onUpdate) { manager, updates in
            try await manager.runClaimed(sync, resuming: true, onUpdate: updates)
        }
    }

    /// Runs the named sync again in the background (see the `reSync(id:onUpdate:)` above).
    @discardableResult
    public nonisolated func reSync(named name: String, onUpdate: @escaping @Sendable (SyncState) -> Void) throws -> SyncState {
        guard let id = try storedSync(named: name)?.id else { throw SyncError.notFound(name) }
        return try reSync(id: NSNumber(value: id), onUpdate: onUpdate)
    }

    /// Runs the named sync again without progress updates and calls `completion` once, with its
    /// final state or why it did not complete (the SDK's Swift extension).
    public nonisolated func reSyncWithoutUpdates(
        named name: String, _ completion: @escaping @Sendable (Result<SyncState, MobileSyncError>) -> Void
    ) {
        do {
            try reSync(named: name) { state in
                switch state.status {
                case .done: completion(.success(state))
                case .stopped: completion(.failure(.stopped))
                case .failed: completion(.failure(.failed(state)))
                case .new, .running: break
                }
            }
        } catch {
            completion(.failure(.notStarted(error)))
        }
    }

    /// Removes the sync's ghosts in the background and calls `onComplete` once with DONE and the
    /// number removed, or FAILED (or STOPPED) and 0, as the SDK's `cleanResyncGhosts`.
    ///
    /// - Throws: `SyncError.notFound(_:)` at once when there is no such sync.
    public nonisolated func cleanResyncGhosts(
        forId syncId: NSNumber, onComplete: @escaping @Sendable (SyncStatus, UInt) -> Void
    ) throws {
        let id = syncId.int64Value
        guard try !store.retrieve([id], from: Self.soupName).isEmpty else { throw SyncError.notFound(String(id)) }
        Task {
            do {
                let removed = try await self.cleanResyncGhosts(id: id)
                onComplete(.done, UInt(max(0, removed)))
            } catch SyncError.stopped {
                onComplete(.stopped, 0)
            } catch {
                onComplete(.failed, 0)
            }
        }
    }

    /// The named sync's ghost cleanup, as `cleanResyncGhosts(forId:onComplete:)`.
    public nonisolated func cleanResyncGhosts(
        forName name: String, onComplete: @escaping @Sendable (SyncStatus, UInt) -> Void
    ) throws {
        guard let id = try storedSync(named: name)?.id else { throw SyncError.notFound(name) }
        try cleanResyncGhosts(forId: NSNumber(value: id), onComplete: onComplete)
    }

    /// The named sync's ghost cleanup, with the number removed or why it did not complete (the
    /// SDK's Swift extension).
    public nonisolated func cleanGhosts(named name: String, _ completion: @escaping @Sendable (Result<UInt, MobileSyncError>) -> Void) {
        do {
            try cleanResyncGhosts(forName: name) { status, removed in
                switch status {
                case .done: completion(.success(removed))
                case .stopped: completion(.failure(.stopped))
                default: completion(.failure(.failed(nil)))
                }
            }
        } catch {
            completion(.failure(.notStarted(error)))
        }
    }

    /// Whether a stop was asked while syncs still run (the SDK's `isStopping()`).
    public nonisolated func isStopping() -> Bool { isStopping }

    /// Whether the manager is stopped (the SDK's `isStopped()`).
    public nonisolated func isStopped() -> Bool { isStopped }

    /// Accepts syncs again and, if asked, runs every STOPPED sync again in the background, each
    /// as `reSync(id:onUpdate:)` does (the SDK's form; `restart(restartStoppedSyncs:onUpdate:)`
    /// with `await` returns their final states).
    public nonisolated func restart(restartStoppedSyncs: Bool, onUpdate: @escaping @Sendable (SyncState) -> Void) throws {
        acceptSyncs()
        guard restartStoppedSyncs else { return }
        for document in try store.query(.exact(soup: Self.soupName, path: "status", key: "STOPPED", pageSize: 10_000)) {
            try reSync(id: NSNumber(value: try MobileSync.SyncState(document: document).id), onUpdate: onUpdate)
        }
    }

    /// `body`'s state, or nil with what it threw logged.
    nonisolated func quietly(_ body: () throws -> SyncState) -> SyncState? {
        do {
            return try body()
        } catch {
            SDKLog.error("Sync not started: \(error)")
            return nil
        }
    }

    /// Throws what a run would throw in a stopped or stopping manager, before anything is saved.
    nonisolated func refuseWhenStopped() throws {
        let state = state
        guard state == .acceptingSyncs else { throw SyncError.managerStopped(state.rawValue) }
    }

    /// Saves a new sync (`state`, writing its soup and `soups`) and starts it as `start` does.
    /// A stop that comes between the check and the start removes the new sync again: a stopped
    /// manager saves nothing.
    private nonisolated func startNew(
        _ state: MobileSync.SyncState, soups: [String], onUpdate: @escaping @Sendable (SyncState) -> Void,
        _ run:
            @escaping @Sendable (SyncManager, MobileSync.SyncState, @escaping @Sendable (MobileSync.SyncState) -> Void) async throws
            -> MobileSync.SyncState
    ) throws -> SyncState {
        try refuseWhenStopped()
        let sync = try createNow(state, soups: [state.soupName] + soups)
        do {
            return try start(sync, onUpdate: onUpdate) { manager, updates in try await run(manager, sync, updates) }
        } catch {
            try? store.delete([sync.id], from: Self.soupName)
            throw error
        }
    }

    /// Marks `sync` running, tells `onUpdate` it is RUNNING and runs `work` in a task of its own,
    /// with `onUpdate` as MobileSync's update closure; a run that then cannot go on (another
    /// process runs the sync) reports a FAILED copy of the state to `onUpdate` (not saved: the
    /// sync may belong to the other run).
    private nonisolated func start(
        _ sync: MobileSync.SyncState, onUpdate: @escaping @Sendable (SyncState) -> Void,
        _ work: @escaping @Sendable (SyncManager, @escaping @Sendable (MobileSync.SyncState) -> Void) async throws -> MobileSync.SyncState
    ) throws -> SyncState {
        try claim(sync.id)
        var running = sync
        running.status = .running
        running.progress = 0
        running.error = ""
        onUpdate(SyncState(running))
        Task {
            do {
                _ = try await work(self) { onUpdate(SyncState($0)) }
            } catch {
                var failed = sync
                failed.status = .failed
                failed.error = "\(error)"
                onUpdate(SyncState(failed))
            }
        }
        return SyncState(running)
    }
}

/// Why a sync run through the SDK's Swift extension shapes (`SyncManager.reSyncWithoutUpdates(named:_:)`,
/// `SyncManager.cleanGhosts(named:_:)`, `SyncManager.publisher(for:)`) did not complete, as
/// the SDK names it.
public enum MobileSyncError: Error {
    /// The run could not start (an unknown sync, one already running, a stopped manager).
    case notStarted(_ error: (any Error)?)
    /// The run was stopped.
    case stopped
    /// The run ended FAILED, with its final state when there is one.
    case failed(_ state: SyncState?)
    /// Anything else.
    case unknown
}
