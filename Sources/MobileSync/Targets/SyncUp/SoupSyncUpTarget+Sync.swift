import FastJSON
import SalesforceREST
import SmartStore

extension SoupSyncUpTarget {
    /// Sends dirty records in batches, in entry-id order (numeric, unlike the SDK's Android),
    /// and applies the outcomes locally. Per-record failures keep the record dirty with
    /// `__last_error__` and are counted in ``SyncState/failedRecordCount``; the sync still ends DONE.
    ///
    /// One batch is prepared (read, stamped) while the previous one is on the wire; outcomes
    /// are applied in order, and a batch in flight is always applied before the sync ends,
    /// stops or fails.
    public func syncUp(_ sync: inout SyncState, context: SyncContext) async throws {
        let (store, client, soup) = (context.store, context.client, sync.soupName)
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
                // Records in conflict wait for ``SyncManager/resolveConflict(entryId:soup:keeping:idFieldName:modificationDateFieldName:)``,
                // unless this sync overwrites the server whatever changed there.
                let held =
                    sync.options.mergeMode == .overwrite ? [:] : try await store.shadows(ConflictShadows.conflict, of: batch, in: soup)
                if !held.isEmpty {
                    records.removeAll { held[$0["_soupEntryId"]?.int64Value ?? -1] != nil }
                    sync.conflictCount += held.count
                }
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
                let options = sync.options
                let plans: [SyncUpPlan] =
                    options.mergeMode == .mergeFields
                    ? try await mergePlans(records, options: options, soup: soup, context: context)
                    : records.map { .send(payload: $0, merged: nil) }
                let payload = plans.compactMap(\.payload)
                // A task of its own: the request is on the wire while the previous batch is applied.
                let sending = SentBatch(
                    records: records, plans: plans, size: batch.count, idFieldName: idFieldName,
                    outcomes: Task.detached {
                        payload.isEmpty ? [] : try await self.send(payload, options: options, client: client)
                    })
                let previous = inFlight
                inFlight = sending // first, so a failure applying the previous batch still applies this one
                if let previous { try await apply(previous, to: &sync, done: &done, of: ids.count, context: context) }
            }
            if let last = inFlight {
                inFlight = nil
                try await apply(last, to: &sync, done: &done, of: ids.count, context: context)
            }
            _ = try await DuplicateFold(store: store, soup: soup, idField: idFieldName).foldAll() // each record once
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
            modificationDateFieldName: modificationDateFieldName, clock: clock, lostCreateWait: context.lostCreateWait)
        let isCreate = { (record: JSONValue) in
            SyncUpRecord(record: record, idFieldName: idField, modificationDateFieldName: "").action == .create
        }
        let fields = createFields(options: sync.options)
        let resolutions = try await reconciler.reconcile(records.filter(isCreate))
        if !resolutions.isEmpty {
            let current = try await Self.currentRecords(records, soup: sync.soupName, store: store)
            var (settled, copies, done): ([JSONValue], [Int64], Set<Int64>) = ([], [], [])
            var errors: [Int64: JSONValue] = [:] // records held back: only their `__last_error__` changes
            for (index, record) in records.enumerated() {
                guard let entryId = record["_soupEntryId"]?.int64Value, let resolution = resolutions[entryId] else { continue }
                guard let now = current[entryId] else {
                    done.insert(entryId)
                    continue
                } // removed meanwhile
                switch resolution {
                case .ambiguous(let reason):
                    errors[entryId] = CreateReconciler.failure(reason)
                    sync.failedRecordCount += 1
                    done.insert(entryId)
                case .pending(let sent, let until):
                    errors[entryId] = CreateReconciler.pendingError(sent: sent, until: until)
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
            if !errors.isEmpty { try await store.setField(LocalFields.lastError, values: errors, in: sync.soupName) }
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

    /// The records of a batch as the soup holds them now, by entry id.
    private static func currentRecords(_ records: [JSONValue], soup: String, store: SmartStore) async throws -> [Int64: JSONValue] {
        let stored = try await store.retrieve(records.compactMap { $0["_soupEntryId"]?.int64Value }, from: soup)
        return Dictionary(
            stored.compactMap { record in record["_soupEntryId"]?.int64Value.map { ($0, record) } }, uniquingKeysWith: { first, _ in first }
        )
    }
}
