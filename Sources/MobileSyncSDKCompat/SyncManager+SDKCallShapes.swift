public import MobileSync
import SmartStore

/// The Mobile SDK's call shapes (`SFMobileSyncSyncManager` in Swift): each returns at once and
/// reports through a callback, the sync running in the background. They sit beside the `async`
/// forms, which return the final state and are what new code should use; an SDK app's calls
/// compile unchanged (see <doc:PortingFromTheMobileSDK>).
extension SyncManager {
    /// Creates a sync down, starts it in the background and returns its first state (NEW), as
    /// the SDK does; every later state (RUNNING with its progress, then DONE, FAILED or STOPPED)
    /// goes to `onUpdate`.
    ///
    /// - Throws: what creating the sync throws (a duplicate name, an unknown soup), at once.
    @discardableResult
    public nonisolated func syncDown(
        target: any SyncDownTarget, options: SyncOptions = SyncOptions(), soupName: String, syncName: String?,
        onUpdate: @escaping @Sendable (SyncState) -> Void
    ) throws -> SyncState {
        let sync = try createNow(
            SyncState(kind: .syncDown, name: syncName, target: target.json, options: options, soupName: soupName),
            soups: [soupName] + target.additionalSoupNames)
        runInBackground(sync, onUpdate: onUpdate) { manager in
            try await manager.runCreated(sync, down: target, onUpdate: onUpdate)
        }
        return sync
    }

    /// Creates a sync up, starts it in the background and returns its first state (NEW), as the
    /// SDK does; later states go to `onUpdate`.
    @discardableResult
    public nonisolated func syncUp(
        target: any SyncUpTarget = CollectionSyncUpTarget(), options: SyncOptions = SyncOptions(), soupName: String,
        syncName: String?, onUpdate: @escaping @Sendable (SyncState) -> Void
    ) throws -> SyncState {
        let sync = try createNow(
            SyncState(kind: .syncUp, name: syncName, target: target.json, options: options, soupName: soupName),
            soups: [soupName] + target.additionalSoupNames)
        runInBackground(sync, onUpdate: onUpdate) { manager in
            try await manager.runCreated(sync, up: target, onUpdate: onUpdate)
        }
        return sync
    }

    /// Runs an existing sync again in the background and returns its state as it is now, as the
    /// SDK does; its states go to `onUpdate`.
    ///
    /// - Throws: `SyncError.notFound(_:)`, or `SyncError.stillRunning(id:)` when it runs
    ///   (in this manager), at once.
    @discardableResult
    public nonisolated func reSync(id: Int64, onUpdate: @escaping @Sendable (SyncState) -> Void) throws -> SyncState {
        guard let sync = try store.retrieve([id], from: Self.soupName).first.map(SyncState.init(document:)) else {
            throw SyncError.notFound(String(id))
        }
        if isRunning(id) { throw SyncError.stillRunning(id: id) }
        runInBackground(sync, onUpdate: onUpdate) { manager in try await manager.reSync(id: id, onUpdate: onUpdate) }
        return sync
    }

    /// Runs the named sync again in the background (see the `reSync(id:onUpdate:)` above).
    @discardableResult
    public nonisolated func reSync(named name: String, onUpdate: @escaping @Sendable (SyncState) -> Void) throws -> SyncState {
        guard let id = try storedSync(named: name)?.id else { throw SyncError.notFound(name) }
        return try reSync(id: id, onUpdate: onUpdate)
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
                case .new, .running, .waiting: break
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
        forId id: Int64, onComplete: @escaping @Sendable (SyncState.Status, UInt) -> Void
    ) throws {
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
        forName name: String, onComplete: @escaping @Sendable (SyncState.Status, UInt) -> Void
    ) throws {
        guard let id = try storedSync(named: name)?.id else { throw SyncError.notFound(name) }
        try cleanResyncGhosts(forId: id, onComplete: onComplete)
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

    /// Runs `work` in a task of its own; a run that cannot start reports a FAILED copy of the
    /// state to `onUpdate` (not saved: the sync may belong to another run).
    private nonisolated func runInBackground(
        _ sync: SyncState, onUpdate: @escaping @Sendable (SyncState) -> Void,
        _ work: @escaping @Sendable (SyncManager) async throws -> SyncState
    ) {
        Task {
            do {
                _ = try await work(self)
            } catch {
                var failed = sync
                failed.status = .failed
                failed.error = "\(error)"
                onUpdate(failed)
            }
        }
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
