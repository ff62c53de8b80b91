import FastJSON
import SalesforceREST

/// A sync down target that writes the store itself — several soups, or deletes decided page by
/// page — instead of handing raw pages to the bulk ingest. ``SyncManager`` runs these through
/// the two methods below, on its own actor; the built-in ones are the paging, briefcase and
/// parent/children targets.
protocol StoreWritingSyncDownTarget: SyncDownTarget {
    /// Runs the sync: fetches, writes, and advances `sync` (progress, counters, boundary).
    func run(_ sync: inout SyncState, manager: isolated SyncManager, onUpdate: (@Sendable (SyncState) -> Void)?) async throws
    /// Removes the sync's records the server no longer has; returns how many.
    func cleanGhosts(syncId: Int64, manager: isolated SyncManager) async throws -> Int
}

extension PagingSyncDownTarget: StoreWritingSyncDownTarget {
    func run(_ sync: inout SyncState, manager: isolated SyncManager, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        try await manager.runPagingSync(&sync, target: self, onUpdate: onUpdate)
    }

    /// A paging sync deletes what the server no longer has as it pages: ghost cleanup runs one.
    func cleanGhosts(syncId: Int64, manager: isolated SyncManager) async throws -> Int {
        let pass = try await manager.reSync(id: syncId)
        if pass.status == .stopped { throw SyncError.stopped }
        guard pass.status == .done else {
            throw SyncError.invalidSyncState("ghost cleanup pass ended \(pass.status.rawValue): \(pass.error)")
        }
        return pass.recordsDeleted
    }
}

extension BriefcaseSyncDownTarget: StoreWritingSyncDownTarget {
    func run(_ sync: inout SyncState, manager: isolated SyncManager, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        try await manager.runBriefcaseSync(&sync, target: self, onUpdate: onUpdate)
    }

    /// Each soup against the briefcase's ids of its type.
    func cleanGhosts(syncId: Int64, manager: isolated SyncManager) async throws -> Int {
        let remote = try await allIds(client: manager.client)
        var removed = 0
        for info in infos {
            let ids = remote[info.objectType] ?? []
            removed += try await manager.deleteGhosts(soup: info.soupName, idFieldName: info.idFieldName, syncId: syncId) {
                ids.intersection($0)
            }
        }
        return removed
    }
}

extension ParentChildrenSyncDownTarget: StoreWritingSyncDownTarget {
    func run(_ sync: inout SyncState, manager: isolated SyncManager, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        try await manager.runParentChildrenSync(&sync, target: self, onUpdate: onUpdate)
    }

    /// Parents that left the filter or the server, then children no longer under a matching parent.
    func cleanGhosts(syncId: Int64, manager: isolated SyncManager) async throws -> Int {
        let client = manager.client
        let parents = try await manager.deleteGhosts(soup: parent.soupName, idFieldName: parent.idFieldName, syncId: syncId) {
            try await remoteIds(client: client, localIds: $0)
        }
        return parents
            + (try await manager.deleteGhosts(soup: children.soupName, idFieldName: children.idFieldName, syncId: syncId) {
                try await remoteChildIds(client: client, localIds: $0)
            })
    }
}
