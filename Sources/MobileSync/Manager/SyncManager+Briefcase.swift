import FastJSON
import SalesforceWire
import SmartStore

extension SyncManager {
    /// Briefcase syncs (``BriefcaseSyncDownTarget``): each priming page's ids are retrieved per
    /// type and written to that type's soup through the bulk ingest; `maxTimeStamp` is the
    /// latest modification date over every soup, so a resync asks only for what changed after.
    func runBriefcaseSync(_ sync: inout SyncState, target: BriefcaseSyncDownTarget, onUpdate: (@Sendable (SyncState) -> Void)?) async throws
    {
        for info in target.infos where try !store.hasSoup(info.soupName) { throw SmartStoreError.unknownSoup(info.soupName) }
        let changedAfter = sync.maxTimeStamp > 0 ? sync.maxTimeStamp : nil
        var maxTimeStamp = sync.maxTimeStamp
        var relayToken: String?
        repeat {
            try checkStop()
            let page = try await target.primingPage(client: client, relayToken: relayToken, changedAfter: changedAfter)
            if relayToken == nil {
                // As the SDK's other targets: RUNNING 0 -1, then RUNNING 0 N once the total is known.
                sync.totalSize = page.totalCount ?? page.idsByType.values.reduce(0) { $0 + $1.count }
                try save(&sync, onUpdate: onUpdate)
            }
            sync.pagesFetched += 1
            for info in target.infos {
                let ids = page.idsByType[info.objectType] ?? []
                guard !ids.isEmpty else { continue }
                let records = try await target.records(ids, of: info, client: client)
                let result = try store.ingestPage(
                    JSONValue.array(records).jsonBytes, into: info.soupName, recordsPath: "", idPath: info.idFieldName,
                    timestampPath: info.modificationDateFieldName, skipDirty: sync.options.mergeMode == .leaveIfChanged,
                    setFields: LocalFields.clean(syncId: sync.id), removeFields: [LocalFields.lastError])
                sync.recordsFetched += result.received
                if let latest = result.maxTimestamp.flatMap(SalesforceTime.parse) { maxTimeStamp = max(maxTimeStamp, latest) }
            }
            relayToken = page.relayToken
            if relayToken != nil {
                if sync.totalSize > 0 { sync.progress = min(99, sync.recordsFetched * 100 / sync.totalSize) }
                try save(&sync, onUpdate: onUpdate)
            }
        } while relayToken != nil
        sync.maxTimeStamp = maxTimeStamp
    }
}
