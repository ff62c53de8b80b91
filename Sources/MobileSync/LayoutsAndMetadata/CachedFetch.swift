import FastJSON
import SmartStore

/// The fetch modes over one soup entry that a sync down target refreshes: what
/// ``LayoutSyncManager`` and ``MetadataSyncManager`` share.
struct CachedFetch: Sendable {
    let syncManager: SyncManager
    let soupName: String

    /// Registers the soup (an `Id` index, as the SDK's) if it is missing.
    static func prepare(_ store: SmartStore, soupName: String) throws {
        if try !store.hasSoup(soupName) { try store.registerSoup(soupName, indexSpecs: [IndexSpec("Id", .json1)]) }
    }

    /// The entry `id`, looked up as `mode` says, refreshed through `target` (a named sync per
    /// entry, `syncName`, resynced on every server fetch rather than a new sync each time).
    func fetch(id: String, mode: FetchMode, target: any SyncDownTarget, syncName: String) async throws -> JSONValue? {
        switch mode {
        case .cacheOnly:
            return try await cached(id)
        case .cacheFirst:
            if let entry = try await cached(id) { return entry }
            try await refresh(target: target, syncName: syncName)
            return try await cached(id)
        case .serverFirst:
            do {
                try await refresh(target: target, syncName: syncName)
            } catch {
                guard let entry = try await cached(id) else { throw error }
                return entry
            }
            return try await cached(id)
        case .serverOnly:
            try await refresh(target: target, syncName: syncName)
            return try await cached(id)
        }
    }

    /// The final state of the run another fetch of the same entry started: waited for while
    /// the manager runs it, or while it is still NEW (created, its run about to start), for at
    /// most two minutes.
    private func runOfAnotherFetch(_ syncName: String) async throws -> SyncState {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            guard let current = try syncManager.storedSync(named: syncName) else { throw SyncError.notFound(syncName) }
            if !syncManager.isRunning(current.id), current.status != .new, !current.isRunning, !current.isWaiting { return current }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SyncError.invalidSyncState("The sync \(syncName) of another fetch did not end within two minutes")
    }

    private func cached(_ id: String) async throws -> JSONValue? {
        try await syncManager.store.query(.exact(soup: soupName, path: "Id", key: .string(id), pageSize: 1)).first
    }

    /// Runs the entry's sync: the named one again, or a new one. A run of it already under way
    /// (another fetch of the same entry) is waited for.
    private func refresh(target: any SyncDownTarget, syncName: String) async throws {
        let state: SyncState
        do {
            if try syncManager.storedSync(named: syncName) != nil {
                state = try await syncManager.reSync(named: syncName)
            } else {
                state = try await syncManager.syncDown(
                    target: target, options: SyncOptions(mergeMode: .overwrite), soupName: soupName, name: syncName)
            }
        } catch SyncError.stillRunning, SyncError.duplicateName {
            state = try await runOfAnotherFetch(syncName)
        }
        guard state.isDone else { throw SyncError.invalidSyncState("The sync \(syncName) ended \(state.status.rawValue): \(state.error)") }
    }
}
