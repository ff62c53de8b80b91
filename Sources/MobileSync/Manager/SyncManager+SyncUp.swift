import FastJSON
import SmartStore

extension SyncManager {
    /// Sends dirty records in batches, in entry-id order (numeric, unlike the SDK's Android),
    /// and applies the outcomes locally. Per-record failures keep the record dirty with
    /// `__last_error__` and are counted in ``SyncState/failedRecordCount``; the sync still ends DONE.
    func runSyncUp(_ sync: inout SyncState, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        let target = try targets.syncUpTarget(sync.target)
        let soup = sync.soupName
        let ids = try dirtyEntryIds(soup: soup)
        sync.totalSize = ids.count
        try save(&sync, onUpdate: onUpdate)
        var done = 0
        for start in stride(from: 0, to: ids.count, by: target.maxBatchSize) {
            try checkStop()
            let batch = Array(ids[start..<min(ids.count, start + target.maxBatchSize)])
            var records = try store.retrieve(batch, from: soup)
            if !target.createsAreIdempotent {
                // Creates whose earlier response was lost may exist already: adopt them, stamp the rest.
                let reconciler = CreateReconciler(store: store, client: client, soup: soup, idFieldName: target.idFieldName)
                let isCreate = { (record: JSONValue) in
                    SyncUpRecord(record: record, idFieldName: target.idFieldName, modificationDateFieldName: "").action == .create
                }
                let adopted = try await reconciler.adopt(records.filter(isCreate), fields: target.createFields(options: sync.options) ?? [])
                if !adopted.isEmpty {
                    try store.upsert(Array(adopted.values), in: soup)
                    records.removeAll { adopted[$0["_soupEntryId"]?.int64Value ?? -1] != nil }
                }
                records = try reconciler.stamp(records, where: isCreate, now: Self.now())
            }
            let entryIds = records.compactMap { $0["_soupEntryId"]?.int64Value }
            let outcomes = try await target.syncUp(records, options: sync.options, client: client)
            var deleted: [Int64] = []
            var saved: [JSONValue] = []
            for (index, outcome) in outcomes.enumerated() where index < records.count {
                switch outcome {
                case .synced(let record):
                    saved.append(record)
                case .deleted:
                    deleted.append(entryIds[index])
                case .leftDirty(let error?):
                    var record = records[index]
                    record[LocalFields.lastError] = .string(error.jsonString)
                    saved.append(record)
                    sync.failedRecordCount += 1
                case .leftDirty(nil):
                    continue
                }
            }
            try store.upsert(saved, in: soup)
            try store.delete(deleted, from: soup)
            done += batch.count
            if done < ids.count {
                sync.progress = done * 100 / ids.count
                try save(&sync, onUpdate: onUpdate)
            }
        }
    }

    /// `_soupEntryId`s of dirty entries, ascending.
    func dirtyEntryIds(soup: String) throws -> [Int64] {
        var ids: [Int64] = []
        let spec = QuerySpec.smart("select {\(soup):_soupEntryId} from {\(soup)} where {\(soup):\(LocalFields.local)} = 1 and {\(soup):_soupEntryId} > ? order by {\(soup):_soupEntryId}", pageSize: 5000)
        while true {
            let rows = try store.query(spec, arguments: [.int(ids.last ?? 0)])
            let page = rows.compactMap { $0.arrayValue?.first?.int64Value }
            guard !page.isEmpty else { return ids }
            ids += page
        }
    }
}
