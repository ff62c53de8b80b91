import FastJSON
public import MobileSync

/// The SDK's calls that create a sync without running it, and its check of the manager's state.
extension SyncManager {
    /// Creates a sync down without running it (NEW); nil, logged, when it cannot be created (a
    /// name taken, an unknown soup). The SDK's is declared non-optional and can be nil then.
    public nonisolated func createSyncDown(
        _ target: any SyncDownTarget, options: SyncOptions, soupName: String, syncName: String?
    ) -> SyncState? {
        create(.syncDown, target: target.json, soups: target.additionalSoupNames, options: options, soupName: soupName, name: syncName)
    }

    /// Creates a sync up without running it (NEW); nil, logged, when it cannot be created.
    public nonisolated func createSyncUp(
        _ target: any SyncUpTarget, options: SyncOptions, soupName: String, syncName: String?
    ) -> SyncState? {
        create(.syncUp, target: target.json, soups: target.additionalSoupNames, options: options, soupName: soupName, name: syncName)
    }

    /// Throws `SyncError.managerStopped(_:)` when the manager is stopping or stopped (the SDK's
    /// `checkAcceptingSyncs()`).
    public nonisolated func checkAcceptingSyncs() throws { try refuseWhenStopped() }

    private nonisolated func create(
        _ kind: MobileSync.SyncState.Kind, target: JSONValue, soups: [String], options: SyncOptions, soupName: String, name: String?
    ) -> SyncState? {
        quietly {
            let state = MobileSync.SyncState(kind: kind, name: name, target: target, options: options, soupName: soupName)
            return SyncState(try createNow(state, soups: [soupName] + soups))
        }
    }
}
