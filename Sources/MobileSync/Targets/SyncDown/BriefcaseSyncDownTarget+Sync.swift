import FastJSON
import SalesforceWire
import SmartStore

extension BriefcaseSyncDownTarget {
    /// Each priming page's ids are retrieved per type and written to that type's soup through
    /// the bulk ingest; `maxTimeStamp` is the latest modification date over every soup, so a
    /// resync asks only for what changed after.
    public func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
        try context.requireSoups(infos.map(\.soupName))
        let client = context.client
        let changedAfter = sync.maxTimeStamp > 0 ? sync.maxTimeStamp : nil
        var maxTimeStamp = sync.maxTimeStamp
        var relayToken: String?
        repeat {
            try await context.checkStop()
            let page = try await primingPage(client: client, relayToken: relayToken, changedAfter: changedAfter)
            if relayToken == nil {
                // As the SDK's other targets: RUNNING 0 -1, then RUNNING 0 N once the total is known.
                sync.totalSize = page.totalCount ?? page.idsByType.values.reduce(0) { $0 + $1.count }
                try await context.save(&sync)
            }
            sync.pagesFetched += 1
            for info in infos {
                let ids = page.idsByType[info.objectType] ?? []
                guard !ids.isEmpty else { continue }
                let records = try await self.records(ids, of: info, client: client)
                let result = try await context.store.ingestPage(
                    JSONValue.array(records).jsonBytes, into: info.soupName, recordsPath: "", idPath: info.idFieldName,
                    timestampPath: info.modificationDateFieldName, skipDirty: sync.options.mergeMode.keepsLocalChanges, keepNewer: true,
                    setFields: LocalFields.clean(syncId: sync.id), removeFields: LocalFields.ownedFields)
                sync.recordsFetched += result.received
                if sync.options.mergeMode == .mergeFields {
                    let conflicts = try await SyncDownMerge(
                        store: context.store, soup: info.soupName, idFieldName: info.idFieldName,
                        modificationDateFieldName: info.modificationDateFieldName, syncId: sync.id
                    ).merge(records)
                    sync.conflictCount += conflicts.count
                    await context.report(conflicts)
                }
                if let latest = result.maxTimestamp.flatMap(SalesforceTime.parse) { maxTimeStamp = max(maxTimeStamp, latest) }
            }
            relayToken = page.relayToken
            if relayToken != nil {
                if sync.totalSize > 0 { sync.progress = min(99, sync.recordsFetched * 100 / sync.totalSize) }
                try await context.save(&sync)
            }
        } while relayToken != nil
        sync.maxTimeStamp = maxTimeStamp
    }

    /// Each soup against the briefcase's ids of its type.
    public func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int {
        let remote = try await allIds(client: context.client)
        var removed = 0
        for info in infos {
            let ids = remote[info.objectType] ?? []
            removed += try await context.deleteGhosts(soup: info.soupName, idFieldName: info.idFieldName, syncId: sync.id) {
                ids.intersection($0)
            }
        }
        return removed
    }
}
