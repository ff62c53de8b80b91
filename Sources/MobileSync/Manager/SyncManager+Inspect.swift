import FastJSON
public import SmartStore

extension SyncManager {
    /// The sync states stored in `store`, in id order, read without a manager: nothing is
    /// registered or recovered, so a read-only store (`SmartStore(readOnlyAt:key:)`) or a
    /// store another process is syncing can be inspected.
    ///
    /// - Returns: no states when the store has no `syncs_soup` (no manager ever used it).
    /// - Throws: the store's errors; ``SyncError/invalidSyncState(_:)`` for a stored state that
    ///   cannot be read.
    public static func syncStates(in store: SmartStore) throws -> [SyncState] {
        guard try store.hasSoup(soupName) else { return [] }
        let spec = QuerySpec.all(soup: soupName, orderPath: "_soupEntryId", pageSize: 500)
        var states: [SyncState] = []
        var page = 0
        while true {
            let documents = try store.query(spec, pageIndex: page)
            states += try documents.map(SyncState.init(document:))
            guard documents.count == spec.pageSize else { return states }
            page += 1
        }
    }
}
