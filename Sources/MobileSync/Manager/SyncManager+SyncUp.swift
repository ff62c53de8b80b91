import FastJSON
import SmartStore

extension SyncManager {
    /// A batch whose request is under way.
    private struct SentBatch {
        let records: [JSONValue]
        let size: Int
        let outcomes: Task<[SyncUpOutcome], any Error>
    }

    /// Sends dirty records in batches, in entry-id order (numeric, unlike the SDK's Android),
    /// and applies the outcomes locally. Per-record failures keep the record dirty with
    /// `__last_error__` and are counted in ``SyncState/failedRecordCount``; the sync still ends DONE.
    ///
    /// One batch is prepared (read, stamped) while the previous one is on the wire; outcomes
    /// are applied in order, and a batch in flight is always applied before the sync ends,
    /// stops or fails.
    func runSyncUp(_ sync: inout SyncState, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        let target = try targets.syncUpTarget(sync.target)
        if let trees = target as? ParentChildrenSyncUpTarget { return try await runParentChildrenSyncUp(&sync, target: trees, onUpdate: onUpdate) }
        let soup = sync.soupName
        let ids = try dirtyEntryIds(soup: soup)
        sync.totalSize = ids.count
        try save(&sync, onUpdate: onUpdate)
        var done = 0
        var inFlight: SentBatch?
        do {
            for start in stride(from: 0, to: ids.count, by: target.maxBatchSize) {
                try checkStop()
                let batch = Array(ids[start..<min(ids.count, start + target.maxBatchSize)])
                var records = try store.retrieve(batch, from: soup)
                if !target.createsAreIdempotent {
                    if records.contains(where: { $0[LocalFields.createAttempt] != nil }), let sent = inFlight {
                        // Adoption must not mistake the batch in flight's creates for earlier ones.
                        inFlight = nil
                        try await apply(sent, to: &sync, done: &done, of: ids.count, onUpdate: onUpdate)
                    }
                    records = try await reconcileCreates(records, target: target, soup: soup, options: sync.options)
                }
                let (toSend, options, client) = (records, sync.options, self.client)
                // Detached: the request must not wait for this actor, which goes on to apply the previous batch.
                let sending = SentBatch(records: toSend, size: batch.count, outcomes: Task.detached {
                    try await target.syncUp(toSend, options: options, client: client)
                })
                let previous = inFlight
                inFlight = sending  // first, so a failure applying the previous batch still applies this one
                if let previous { try await apply(previous, to: &sync, done: &done, of: ids.count, onUpdate: onUpdate) }
            }
            if let last = inFlight {
                inFlight = nil
                try await apply(last, to: &sync, done: &done, of: ids.count, onUpdate: onUpdate)
            }
        } catch {
            // Whatever ended the sync, what the server already did is recorded locally.
            if let sent = inFlight { try? await apply(sent, to: &sync, done: &done, of: ids.count, onUpdate: nil) }
            throw error
        }
    }

    /// Creates whose earlier response was lost may exist already: adopts them, stamps the rest.
    private func reconcileCreates(_ batch: [JSONValue], target: any SyncUpTarget, soup: String, options: SyncOptions) async throws -> [JSONValue] {
        var records = batch
        let reconciler = CreateReconciler(store: store, client: client, soup: soup, idFieldName: target.idFieldName)
        let isCreate = { (record: JSONValue) in
            SyncUpRecord(record: record, idFieldName: target.idFieldName, modificationDateFieldName: "").action == .create
        }
        let adopted = try await reconciler.adopt(records.filter(isCreate), fields: target.createFields(options: options) ?? [])
        if !adopted.isEmpty {
            try store.upsert(Array(adopted.values), in: soup)
            records.removeAll { adopted[$0["_soupEntryId"]?.int64Value ?? -1] != nil }
        }
        return try reconciler.stamp(records, where: isCreate, now: Self.now())
    }

    /// Waits for a batch's outcomes and stores them; saves progress unless it was the last batch.
    private func apply(_ sent: SentBatch, to sync: inout SyncState, done: inout Int, of total: Int,
                       onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        let outcomes = try await sent.outcomes.value
        var deleted: [Int64] = []
        var saved: [JSONValue] = []
        for (record, outcome) in zip(sent.records, outcomes) {
            switch outcome {
            case .synced(let record):
                saved.append(record)
            case .deleted:
                if let entryId = record["_soupEntryId"]?.int64Value { deleted.append(entryId) }
            case .leftDirty(let error?):
                var failed = record
                failed[LocalFields.lastError] = .string(error.jsonString)
                saved.append(failed)
                sync.failedRecordCount += 1
            case .leftDirty(nil):
                continue
            }
        }
        try store.upsert(saved, in: sync.soupName)
        try store.delete(deleted, from: sync.soupName)
        done += sent.size
        if done < total {
            sync.progress = done * 100 / total
            try save(&sync, onUpdate: onUpdate)
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
