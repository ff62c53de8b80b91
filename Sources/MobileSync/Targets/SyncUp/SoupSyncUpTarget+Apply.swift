import FastJSON
import Locking
import SalesforceREST
import SmartStore

/// What a batch's answer means for one record.
private enum Settlement: Sendable {
    /// Saved on the server: the store keeps `record` (unless edited meanwhile).
    case synced(JSONValue)
    /// Equal to the server's version once merged: the store keeps `record`, clean.
    case settled(JSONValue)
    case deleted
    case failed(JSONValue)
    /// Sent without learning what the server did: failed, but its create attempt is kept.
    case unknown(JSONValue)
    case conflict(SyncConflict.Kind, fields: [String], server: JSONValue?)
}

/// A batch's records by entry id: each as read before sending, its payload if it was sent, and
/// what the answer means for it.
private typealias SettledRecords = [Int64: (read: JSONValue, payload: JSONValue?, settlement: Settlement)]

extension SoupSyncUpTarget {
    /// Waits for a batch's outcomes and stores them; saves progress unless it was the last batch.
    ///
    /// Outcomes are applied to the records as they are now, in one transaction with their
    /// shadows: a record edited while its request was on the wire keeps the edit and stays dirty
    /// (a create it made becomes an update of the new server record), its base moving to what
    /// the server now holds; one removed from the soup meanwhile is not brought back. Conflicts
    /// are recorded with the server's version (read once per object type) and reported.
    ///
    /// `context` nil: the sync is ending on an error; the outcomes are stored (in `store`), the
    /// server is not asked anything and no progress is saved.
    func apply(
        _ sent: SentBatch, to sync: inout SyncState, done: inout Int, of total: Int, context: SyncContext?, store: SmartStore? = nil
    ) async throws {
        guard let store = context?.store ?? store else { return }
        let outcomes: [SyncUpOutcome]
        do {
            outcomes = try await sent.outcomes.value
        } catch RestError.http(let status, let errors, let body) where !errors.isEmpty {
            // The API answered with an error of its own: every request of the batch ended, so a
            // create of it that did not land was lost for good, not still landing.
            try? await CreateReconciler.markEnded(sent.records, soup: sync.soupName, in: store)
            throw RestError.http(status: status, errors: errors, body: body)
        } catch RestError.sessionExpired(let detail) {
            // A 401 is answered before the request is processed; the requests before it ended.
            try? await CreateReconciler.markEnded(sent.records, soup: sync.soupName, in: store)
            throw RestError.sessionExpired(detail)
        }
        let (settled, unknownServer) = settlements(of: sent, outcomes: outcomes)
        var results = settled
        var verdicts: [String: WriteConfirmation.Verdict] = [:]
        if let context {
            verdicts = await consultServer(&results, unknownServer: unknownServer, options: sync.options, context: context)
        } else {
            // Unknown without the server: left as they are, for the next run.
            for entryId in unknownServer { results[entryId] = nil }
        }
        guard !results.isEmpty else { return try await advance(&sync, done: &done, by: sent.size, of: total, context: context) }
        let (failed, conflicts) = try await storeSettlements(
            results, verdicts: verdicts, options: sync.options, soup: sync.soupName, in: store)
        sync.failedRecordCount += failed
        sync.conflictCount += conflicts.count
        if let context, !conflicts.isEmpty { await context.report(conflicts) }
        try await advance(&sync, done: &done, by: sent.size, of: total, context: context)
    }

    /// What the batch's answer means for each record, by entry id, and the entries in conflict
    /// whose server version is not known yet (their conflict was found by the send).
    private func settlements(of sent: SentBatch, outcomes: [SyncUpOutcome]) -> (results: SettledRecords, unknownServer: [Int64]) {
        var results: SettledRecords = [:]
        var answers = outcomes.makeIterator()
        var unknownServer: [Int64] = []
        for (record, plan) in zip(sent.records, sent.plans) {
            guard let entryId = record["_soupEntryId"]?.int64Value else { continue }
            switch plan {
            case .send(let payload, let merged):
                guard let outcome = answers.next() else { continue }
                switch outcome {
                case .synced(let synced):
                    let kept =
                        merged.map {
                            SyncUpRecord(record: $0, idFieldName: idFieldName, modificationDateFieldName: "").cleaned(
                                id: synced[idFieldName]?.stringValue)
                        } ?? synced
                    results[entryId] = (record, payload, .synced(kept))
                case .deleted: results[entryId] = (record, payload, .deleted)
                case .leftDirty(let error?): results[entryId] = (record, payload, .failed(error))
                case .leftDirty(nil): continue
                case .outcomeUnknown(let error): results[entryId] = (record, payload, .unknown(error))
                case .conflict(let kind):
                    results[entryId] = (record, payload, .conflict(kind, fields: [], server: nil))
                    if kind != .deletedOnServer { unknownServer.append(entryId) }
                }
            case .conflict(let kind, let fields, let server):
                results[entryId] = (record, nil, .conflict(kind, fields: fields, server: server))
            case .settled(let clean): results[entryId] = (record, nil, .settled(clean))
            case .gone: results[entryId] = (record, nil, .deleted)
            }
        }
        return (results, unknownServer)
    }

    /// Asks the server what it holds after the batch's writes (the verdicts, by server id) and
    /// reads its version of each record of `unknownServer`; those that cannot be settled now are
    /// removed from `results`, left as they are for the next run.
    private func consultServer(
        _ results: inout SettledRecords, unknownServer: [Int64], options: SyncOptions, context: SyncContext
    ) async -> [String: WriteConfirmation.Verdict] {
        var unknownServer = unknownServer
        let verdicts = await confirmations(
            results.values.compactMap { entry in entry.payload.map { ($0, entry.settlement) } }, options: options,
            client: context.client)
        if options.mergeMode == .mergeFields {
            // A change landed between the merge and the write (or a delete): merged again on the next run.
            for entryId in unknownServer { results[entryId] = nil }
            unknownServer = []
        }
        // Not read (a network failure): unknown, left as they are for the next run, while the
        // batch's other outcomes are recorded.
        let servers = try? await serverVersions(
            unknownServer.compactMap { results[$0]?.read }, options: options, client: context.client)
        for entryId in unknownServer {
            guard let servers, let entry = results[entryId], case .conflict(let kind, _, _) = entry.settlement,
                let id = SyncUpRecord(record: entry.read, idFieldName: idFieldName, modificationDateFieldName: "").id
            else {
                results[entryId] = nil
                continue
            }
            guard let server = servers[id] else {
                // Gone on the server since: an update meets a delete.
                results[entryId]?.settlement = kind == .deletedLocally ? .deleted : .conflict(.deletedOnServer, fields: [], server: nil)
                continue
            }
            results[entryId]?.settlement = .conflict(kind, fields: [], server: server)
        }
        return verdicts
    }

    /// Writes the settlements to the records as they are now, in `soup`; returns how many failed
    /// and the conflicts recorded.
    private func storeSettlements(
        _ settlements: SettledRecords, verdicts confirmed: [String: WriteConfirmation.Verdict], options: SyncOptions, soup: String,
        in store: SmartStore
    ) async throws -> (failed: Int, conflicts: [SyncConflict]) {
        let (idField, dateField, list) = (idFieldName, modificationDateFieldName, updateFields(options: options) ?? [])
        let tally = Locked((failed: 0, conflicts: [SyncConflict](), created: [(entryId: Int64, serverId: String)]()))
        // Read, merged and written in one transaction with their shadows: an edit landing meanwhile is not lost.
        try await store.modify(settlements.keys.sorted(), in: soup, shadows: [ConflictShadows.base, ConflictShadows.conflict]) { edit in
            guard let now = edit.entry, let entryId = now["_soupEntryId"]?.int64Value, let (read, _, settlement) = settlements[entryId]
            else { return }
            switch settlement {
            case .synced(let kept), .settled(let kept):
                let verdict: WriteConfirmation.Verdict? =
                    if case .synced = settlement { kept[idField]?.stringValue.flatMap { confirmed[$0] } } else { nil }
                let server = SyncUpMerge.settled(kept, verdict: verdict, sent: read, now: read, modificationDateFieldName: dateField)
                if SyncUpMerge.isUnchanged(now, since: read) {
                    edit.entry = SyncUpMerge.settled(kept, verdict: verdict, sent: read, now: now, modificationDateFieldName: dateField)
                } else {
                    edit.entry = SyncUpMerge.settled(
                        SyncUpMerge.rebase(now, read: read, onto: kept, idFieldName: idField), verdict: verdict, sent: read, now: now,
                        modificationDateFieldName: dateField)
                    // Still dirty: its base is what the server holds now.
                    edit.shadows[ConflictShadows.base] = server
                }
                edit.shadows[ConflictShadows.conflict] = nil // sent whatever the server held: settled
                if case .settled = settlement { edit.entry?[LocalFields.updateAttempt] = nil } // nothing was sent
                if LocalFields.isLocalId(read[idField]?.stringValue), let id = kept[idField]?.stringValue, !LocalFields.isLocalId(id) {
                    tally.withLock { $0.created.append((entryId, id)) }
                }
            case .deleted:
                edit.entry = nil
            case .failed(let error):
                edit.entry?[LocalFields.lastError] = .string(error.jsonString)
                edit.entry?[LocalFields.createAttempt] = nil // the server answered: nothing was created
                tally.withLock { $0.failed += 1 }
            case .unknown(let error):
                edit.entry?[LocalFields.lastError] = .string(error.jsonString)
                tally.withLock { $0.failed += 1 }
            case .conflict(let kind, let found, let server):
                let compared = list.filter { $0 != idField && $0 != dateField && !$0.contains(".") } // the fields a write can change
                if let conflict = ConflictShadows.record(kind, fields: found, server: server, comparing: compared, soup: soup, in: &edit) {
                    tally.withLock { $0.conflicts.append(conflict) }
                }
            }
        }
        let (failed, conflicts, created) = tally.current
        try await foldCopies(of: created, soup: soup, in: store)
        return (failed, conflicts)
    }

    /// Entries another writer made of records this batch created, before the outcome gave the
    /// original entry its server id (a live sync's CREATE event, another process's sync down):
    /// folded into the original (see ``DuplicateFold``), so that each record is held once.
    private func foldCopies(of created: [(entryId: Int64, serverId: String)], soup: String, in store: SmartStore) async throws {
        guard !created.isEmpty, try store.hasIndex(forPath: idFieldName, inSoup: soup) else { return }
        _ = try await DuplicateFold(store: store, soup: soup, idField: idFieldName).fold(created.map(\.serverId))
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

    /// What the server holds after the batch's successful creates and updates, by server id
    /// (see ``WriteConfirmation``): each payload sent with its settlement.
    private func confirmations(_ sent: [(JSONValue, Settlement)], options: SyncOptions, client: RestClient) async
        -> [String: WriteConfirmation.Verdict]
    {
        var writes: [WrittenRecord] = []
        for (payload, settlement) in sent {
            guard case .synced(let kept) = settlement, let id = kept[idFieldName]?.stringValue, !LocalFields.isLocalId(id) else { continue }
            let item = SyncUpRecord(record: payload, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
            guard let type = item.objectType else { continue }
            let list = item.action == .create ? createFields(options: options) : updateFields(options: options)
            writes.append(WrittenRecord(objectType: type, serverId: id, sentFields: item.fields(list ?? [])))
        }
        return await WriteConfirmation(target: self, client: client).verdicts(writes)
    }

    /// The server's versions of records (the listed fields, the date and who changed it last),
    /// by server id; records the server does not have are absent.
    private func serverVersions(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [String: JSONValue] {
        let items = records.map { SyncUpRecord(record: $0, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName) }
        var fields = [idFieldName, modificationDateFieldName, WriteConfirmation.lastModifiedById].filter { !$0.isEmpty }
        for name in Set((updateFields(options: options) ?? []) + (createFields(options: options) ?? [])).sorted()
        where !fields.contains(name) && !name.contains(".") {
            fields.append(name)
        }
        var versions: [String: JSONValue] = [:]
        for (type, group) in Dictionary(grouping: items.filter { $0.id != nil }, by: { $0.objectType ?? "" }) where !type.isEmpty {
            for (id, record) in try await serverRecords(type, ids: group.compactMap(\.id), fields: fields, client: client) {
                versions[id] = record
            }
        }
        return versions
    }
}
