import FastJSON
import Locking
import SalesforceREST
import SmartStore

/// A batch whose request is under way.
struct SentBatch {
    let records: [JSONValue]
    let size: Int
    let idFieldName: String
    let outcomes: Task<[SyncUpOutcome], any Error>
}

extension BatchedSyncUpTarget {
    /// Sends dirty records in batches, in entry-id order (numeric, unlike the SDK's Android),
    /// and applies the outcomes locally. Per-record failures keep the record dirty with
    /// `__last_error__` and are counted in ``SyncState/failedRecordCount``; the sync still ends DONE.
    ///
    /// One batch is prepared (read, stamped) while the previous one is on the wire; outcomes
    /// are applied in order, and a batch in flight is always applied before the sync ends,
    /// stops or fails.
    public func syncUp(_ sync: inout SyncState, context: SyncContext) async throws {
        let (store, client) = (context.store, context.client)
        let soup = sync.soupName
        let ids = try await entryIdsToSyncUp(soupName: soup, context: context)
        let batchSize = max(1, maxBatchSize)
        sync.totalSize = ids.count
        try await context.save(&sync)
        var done = 0
        var inFlight: SentBatch?
        let clock = ServerClock(client: client)
        do {
            for start in stride(from: 0, to: ids.count, by: batchSize) {
                try await context.checkStop()
                let batch = Array(ids[start..<min(ids.count, start + batchSize)])
                var records = try await store.retrieve(batch, from: soup)
                if !createsAreIdempotent {
                    if records.contains(where: { $0[LocalFields.createAttempt] != nil }), let sent = inFlight {
                        // Adoption must not mistake the batch in flight's creates for earlier ones.
                        inFlight = nil
                        try await apply(sent, to: &sync, done: &done, of: ids.count, context: context)
                    }
                    records = try await reconcileCreates(records, sync: &sync, context: context, clock: clock)
                }
                if sync.options.mergeMode != .overwrite {
                    records = try await stampUpdates(records, options: sync.options, soup: soup, context: context)
                }
                let (toSend, options) = (records, sync.options)
                // A task of its own: the request is on the wire while the previous batch is applied.
                let sending = SentBatch(
                    records: toSend, size: batch.count, idFieldName: idFieldName,
                    outcomes: Task.detached {
                        try await self.syncUp(toSend, options: options, client: client)
                    })
                let previous = inFlight
                inFlight = sending // first, so a failure applying the previous batch still applies this one
                if let previous { try await apply(previous, to: &sync, done: &done, of: ids.count, context: context) }
            }
            if let last = inFlight {
                inFlight = nil
                try await apply(last, to: &sync, done: &done, of: ids.count, context: context)
            }
        } catch {
            // Whatever ended the sync, what the server already did is recorded locally.
            if let sent = inFlight { try? await apply(sent, to: &sync, done: &done, of: ids.count, context: nil, store: store) }
            throw error
        }
    }

    /// Creates whose earlier response was lost may exist already: adopts them (or marks them
    /// when that cannot be told), then stamps the creates about to be sent. Resolutions are
    /// applied to the records as they are after the server was asked, so an edit made
    /// meanwhile is kept (dirty) like one made before.
    private func reconcileCreates(
        _ batch: [JSONValue], sync: inout SyncState, context: SyncContext, clock: ServerClock
    ) async throws -> [JSONValue] {
        let store = context.store
        var records = batch
        let idField = idFieldName
        let reconciler = CreateReconciler(
            store: store, client: context.client, soup: sync.soupName, idFieldName: idField,
            modificationDateFieldName: modificationDateFieldName, clock: clock)
        let isCreate = { (record: JSONValue) in
            SyncUpRecord(record: record, idFieldName: idField, modificationDateFieldName: "").action == .create
        }
        let fields = createFields(options: sync.options)
        let resolutions = try await reconciler.reconcile(records.filter(isCreate))
        if !resolutions.isEmpty {
            let current = try await Self.currentRecords(records, soup: sync.soupName, store: store)
            var (settled, copies, done): ([JSONValue], [Int64], Set<Int64>) = ([], [], [])
            for (index, record) in records.enumerated() {
                guard let entryId = record["_soupEntryId"]?.int64Value, let resolution = resolutions[entryId] else { continue }
                guard let now = current[entryId] else {
                    done.insert(entryId)
                    continue
                } // removed meanwhile
                switch resolution {
                case .ambiguous(let reason):
                    settled.append(CreateReconciler.failed(now, reason))
                    sync.failedRecordCount += 1
                    done.insert(entryId)
                case .adopt(let id, let date, let copy):
                    let adopted = adopted(now, id: id, modificationDate: date, fields: fields ?? [])
                    settled.append(adopted)
                    if let copy { copies.append(copy) }
                    if SyncUpRecord(record: adopted, idFieldName: idField, modificationDateFieldName: "").action == .none {
                        done.insert(entryId)
                    } else {
                        records[index] = adopted // edited or deleted since: goes up as an update or delete
                    }
                }
            }
            if !copies.isEmpty { try await store.delete(copies, from: sync.soupName) }
            if !settled.isEmpty { try await store.upsert(settled, in: sync.soupName) }
            records.removeAll { done.contains($0["_soupEntryId"]?.int64Value ?? -1) }
        }
        return try await reconciler.stamp(records, where: isCreate, fields: fields)
    }

    /// Records an attempt in each update about to be sent, after settling those an earlier run
    /// left (see ``UpdateAttempt/stamping(_:objectType:idFieldName:modificationDateFieldName:sentFields:confirmation:)``).
    private func stampUpdates(_ batch: [JSONValue], options: SyncOptions, soup: String, context: SyncContext) async throws
        -> [JSONValue]
    {
        let fields = updateFields(options: options) ?? []
        let stamped = await UpdateAttempt.stamping(
            batch, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName, sentFields: { $0.fields(fields) },
            confirmation: WriteConfirmation(target: self, client: context.client))
        try await stamped.write(in: soup, store: context.store, modificationDateFieldName: modificationDateFieldName)
        return stamped.records
    }

    /// What the server holds after the batch's successful creates and updates, by server id
    /// (see ``WriteConfirmation``).
    private func confirmations(_ sent: SentBatch, _ outcomes: [SyncUpOutcome], options: SyncOptions, client: RestClient) async
        -> [String: WriteConfirmation.Verdict]
    {
        var writes: [WrittenRecord] = []
        for (record, outcome) in zip(sent.records, outcomes) {
            guard case .synced(let synced) = outcome, let id = synced[idFieldName]?.stringValue, !LocalFields.isLocalId(id) else {
                continue
            }
            let item = SyncUpRecord(record: record, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
            guard let type = item.objectType else { continue }
            let list = item.action == .create ? createFields(options: options) : updateFields(options: options)
            writes.append(WrittenRecord(objectType: type, serverId: id, sentFields: item.fields(list ?? [])))
        }
        return await WriteConfirmation(target: self, client: client).verdicts(writes)
    }

    /// A record whose create landed as server record `id`: clean if it still holds what was
    /// sent, else dirty, as an update (edited since) or a delete (deleted locally since).
    private func adopted(_ record: JSONValue, id: String, modificationDate: JSONValue?, fields: [String]) -> JSONValue {
        let local = SyncUpRecord(record: record, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
        var adopted = local.cleaned(id: id)
        if let modificationDate, !modificationDateFieldName.isEmpty { adopted[modificationDateFieldName] = modificationDate }
        if local.action == .deleteLocalOnly || local.action == .delete {
            adopted[LocalFields.local] = true
            adopted[LocalFields.locallyDeleted] = true
        } else if CreateAttempt(record)?.differs(from: local.fields(fields)) ?? true {
            adopted[LocalFields.local] = true
            adopted[LocalFields.locallyUpdated] = true
        }
        return adopted
    }

    /// Waits for a batch's outcomes and stores them; saves progress unless it was the last batch.
    ///
    /// Outcomes are applied to the records as they are now: a record edited while its request
    /// was on the wire keeps the edit and stays dirty (a create it made becomes an update of
    /// the new server record); one removed from the soup meanwhile is not brought back.
    ///
    /// `context` nil: the sync is ending on an error; the outcomes are stored (in `store`) and
    /// no progress is saved.
    private func apply(
        _ sent: SentBatch, to sync: inout SyncState, done: inout Int, of total: Int, context: SyncContext?, store: SmartStore? = nil
    ) async throws {
        guard let store = context?.store ?? store else { return }
        let outcomes = try await sent.outcomes.value
        // On the way out of a failed sync the server is not asked: attempts stay for the next run.
        var confirmed: [String: WriteConfirmation.Verdict] = [:]
        if let context { confirmed = await confirmations(sent, outcomes, options: sync.options, client: context.client) }
        var changes: [Int64: (sent: JSONValue, outcome: SyncUpOutcome)] = [:]
        for (record, outcome) in zip(sent.records, outcomes) where outcome != .leftDirty(error: nil) {
            if let entryId = record["_soupEntryId"]?.int64Value { changes[entryId] = (record, outcome) }
        }
        guard !changes.isEmpty else { return try await advance(&sync, done: &done, by: sent.size, of: total, context: context) }
        let (idField, dateField, changed, verdicts) = (sent.idFieldName, modificationDateFieldName, changes, confirmed)
        let failed = Locked(0)
        // Read, merged and written in one transaction: an edit landing meanwhile is not lost.
        try await store.modify(changed.keys.sorted(), in: sync.soupName) { entry in
            guard let now = entry, let entryId = now["_soupEntryId"]?.int64Value, let (record, outcome) = changed[entryId] else { return }
            switch outcome {
            case .synced(let synced):
                let merged =
                    SyncUpMerge.isUnchanged(now, since: record)
                    ? synced : SyncUpMerge.editedDuringSync(now, synced: synced, sent: record, idFieldName: idField)
                entry = SyncUpMerge.settled(
                    merged, verdict: synced[idField]?.stringValue.flatMap { verdicts[$0] }, sent: record, now: now,
                    modificationDateFieldName: dateField)
            case .deleted:
                entry = nil
            case .leftDirty(let error?):
                entry?[LocalFields.lastError] = .string(error.jsonString)
                entry?[LocalFields.createAttempt] = nil // the server answered: nothing was created
                failed.withLock { $0 += 1 }
            case .leftDirty(nil):
                break
            }
        }
        sync.failedRecordCount += failed.current
        try await advance(&sync, done: &done, by: sent.size, of: total, context: context)
    }

    /// Counts a batch as done and saves progress, unless it was the last batch or the sync is
    /// ending on an error (`context` nil).
    private func advance(_ sync: inout SyncState, done: inout Int, by size: Int, of total: Int, context: SyncContext?) async throws {
        done += size
        if done < total, let context {
            sync.progress = done * 100 / total
            try await context.save(&sync)
        }
    }

    /// The records of a batch as the soup holds them now, by entry id.
    private static func currentRecords(_ records: [JSONValue], soup: String, store: SmartStore) async throws -> [Int64: JSONValue] {
        let stored = try await store.retrieve(records.compactMap { $0["_soupEntryId"]?.int64Value }, from: soup)
        return Dictionary(
            stored.compactMap { record in record["_soupEntryId"]?.int64Value.map { ($0, record) } }, uniquingKeysWith: { first, _ in first }
        )
    }
}

/// How an outcome meets a record edited while its change was on the wire.
enum SyncUpMerge {
    /// Whether a record is as it was sent (bookkeeping the sync itself writes aside).
    static func isUnchanged(_ now: JSONValue, since sent: JSONValue) -> Bool {
        var (now, sent) = (now, sent)
        for field in ["_soupLastModifiedDate", LocalFields.createAttempt] {
            now[field] = nil
            sent[field] = nil
        }
        return now == sent
    }

    /// The record an outcome leaves, with what reading the server back said (`verdict`; nil:
    /// not known): the server's modification date where the server holds the write and nothing
    /// changed the local date meanwhile; the update attempt removed once answered, kept (as it
    /// was sent) otherwise, for the next sync up to settle.
    static func settled(
        _ record: JSONValue, verdict: WriteConfirmation.Verdict?, sent: JSONValue, now: JSONValue, modificationDateFieldName: String
    ) -> JSONValue {
        var settled = record
        switch verdict {
        case .adopt(let date, _)?:
            if !modificationDateFieldName.isEmpty, now[modificationDateFieldName] == sent[modificationDateFieldName] {
                settled[modificationDateFieldName] = date
            }
            settled[LocalFields.updateAttempt] = nil
        case .superseded?:
            settled[LocalFields.updateAttempt] = nil
        case nil:
            settled[LocalFields.updateAttempt] = now[LocalFields.updateAttempt]
        }
        return settled
    }

    /// A record edited while its change was on the wire: the edit stays, dirty, on top of what
    /// the server now holds (the server id of a create; a create becomes an update).
    static func editedDuringSync(_ now: JSONValue, synced: JSONValue, sent: JSONValue, idFieldName: String) -> JSONValue {
        var merged = now
        merged[idFieldName] = synced[idFieldName]
        if SyncUpRecord(record: sent, idFieldName: idFieldName, modificationDateFieldName: "").action == .create {
            merged[LocalFields.locallyCreated] = false
            merged[LocalFields.locallyUpdated] = true
            merged[LocalFields.local] = true
        }
        merged[LocalFields.createAttempt] = nil
        merged[LocalFields.lastError] = nil
        return merged
    }
}
