public import Foundation
public import MobileSync
import SmartStore

/// The SDK's names for reading and deleting sync states, beside this package's own. The SDK's
/// are quiet: they return nil, false or nothing where ours throw (a sync not found, a store
/// error), and take the SDK's `NSNumber` ids.
extension SyncManager {
    /// The sync's state, or nil (the SDK's `syncStatus(forId:)`; `syncStatus(id:)` throws
    /// store errors).
    public nonisolated func syncStatus(forId syncId: NSNumber) -> SyncState? { SyncState.byId(syncId, store: store) }

    /// The named sync's state, or nil (the SDK's `syncStatus(forName:)`).
    public nonisolated func syncStatus(forName name: String) -> SyncState? { SyncState.byName(name, store: store) }

    /// Whether a sync with this name exists (the SDK's `hasSync(forName:)`).
    public nonisolated func hasSync(forName name: String) -> Bool { syncStatus(forName: name) != nil }

    /// Deletes a sync's state if there is one, quietly (the SDK's `deleteSync(forId:)`); its
    /// records stay. `deleteSync(id:)` throws store errors.
    public nonisolated func deleteSync(forId syncId: NSNumber) { SyncState.delete(syncId: syncId, store: store) }

    /// Deletes the named sync's state if there is one, quietly (the SDK's `deleteSync(forName:)`,
    /// Android's `deleteSync(name)`). `deleteSync(named:)` throws `SyncError.notFound(_:)` instead.
    public nonisolated func deleteSync(forName name: String) { SyncState.delete(syncName: name, store: store) }
}

extension SyncState {
    /// The sync down target this state describes, built from its target's JSON by the built-in
    /// types (the SDK's typed `target`); nil for a sync up, or a custom type, which the registry
    /// it was registered in builds (`SyncTargetRegistry.syncDownTarget(_:)`).
    public var syncDownTarget: (any SyncDownTarget)? {
        let state = state
        return state.kind == .syncDown ? try? SyncTargetRegistry.builtIn.syncDownTarget(state.target) : nil
    }

    /// The sync up target this state describes (see `syncDownTarget`).
    public var syncUpTarget: (any SyncUpTarget)? {
        let state = state
        return state.kind == .syncUp ? try? SyncTargetRegistry.builtIn.syncUpTarget(state.target) : nil
    }
}

extension SyncTargetRegistry {
    /// A registry of the built-in types only, shared.
    static let builtIn = SyncTargetRegistry()
}
