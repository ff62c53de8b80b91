public import MobileSync
import SmartStore

/// The SDK's names for reading and deleting sync states, beside this package's own. The SDK's
/// are quiet: they return nil, false or nothing where ours throw (a sync not found, a store
/// error).
extension SyncManager {
    /// The sync's state, or nil (the SDK's `syncStatus(forId:)`; `syncStatus(id:)` throws
    /// store errors).
    public nonisolated func syncStatus(forId id: Int64) -> SyncState? {
        try? store.retrieve([id], from: Self.soupName).first.flatMap { try? SyncState(document: $0) }
    }

    /// The named sync's state, or nil (the SDK's `syncStatus(forName:)`).
    public nonisolated func syncStatus(forName name: String) -> SyncState? {
        (try? storedSync(named: name)) ?? nil
    }

    /// Whether a sync with this name exists (the SDK's `hasSync(forName:)`).
    public nonisolated func hasSync(forName name: String) -> Bool {
        syncStatus(forName: name) != nil
    }

    /// Deletes a sync's state if there is one, quietly (the SDK's `deleteSync(forId:)`); its
    /// records stay. `deleteSync(id:)` throws store errors.
    public nonisolated func deleteSync(forId id: Int64) {
        try? store.delete([id], from: Self.soupName)
    }

    /// Deletes the named sync's state if there is one, quietly (the SDK's `deleteSync(forName:)`,
    /// Android's `deleteSync(name)`). `deleteSync(named:)` throws
    /// `SyncError.notFound(_:)` instead.
    public nonisolated func deleteSync(forName name: String) {
        if let sync = syncStatus(forName: name) { deleteSync(forId: sync.id) }
    }

    /// The store's syncs with this status, in id order (the SDK's
    /// `SFSyncState.getSyncsWithStatus`).
    public nonisolated func syncStates(withStatus status: SyncState.Status) throws -> [SyncState] {
        try Self.syncStates(in: store).filter { $0.status == status }
    }
}

extension SyncState {
    /// The sync down target this state describes, built from `target` by the built-in types
    /// (the SDK's typed `target`); nil for a sync up, or a custom type, which the registry it
    /// was registered in builds (`SyncTargetRegistry.syncDownTarget(_:)`).
    public var syncDownTarget: (any SyncDownTarget)? {
        kind == .syncDown ? try? SyncTargetRegistry.builtIn.syncDownTarget(target) : nil
    }

    /// The sync up target this state describes (see `syncDownTarget`).
    public var syncUpTarget: (any SyncUpTarget)? {
        kind == .syncUp ? try? SyncTargetRegistry.builtIn.syncUpTarget(target) : nil
    }
}

extension SyncTargetRegistry {
    /// A registry of the built-in types only, shared.
    static let builtIn = SyncTargetRegistry()
}
