import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire
import SmartStore

/// Parent/children sync ups: see ``ParentChildrenSyncUpTarget`` for the rules.
extension ParentChildrenSyncUpTarget {
    /// Syncs up every tree with a dirty record, one after the other, in parent id order.
    public func syncUp(_ sync: inout SyncState, context: SyncContext) async throws {
        try context.requireSoups([parent.soupName, children.soupName])
        let parentIds = try await context.dirtyTreeIds(parent: parent, children: children).sorted()
        sync.totalSize = parentIds.count
        try await context.save(&sync)
        let confirmations = TreeConfirmations(target: self, context: context)
        do {
            for (index, parentId) in parentIds.enumerated() {
                try await context.checkStop()
                guard let tree = try await loadTree(parentId, store: context.store) else { continue }
                sync.failedRecordCount += try await syncTree(
                    tree.parent, tree.children, options: sync.options, context: context, pass: 1, confirmations: confirmations,
                    conflicts: &sync.conflictCount)
                if confirmations.count >= TreeConfirmations.batchSize { try await confirmations.flush() }
                if index + 1 < parentIds.count {
                    sync.progress = (index + 1) * 100 / parentIds.count
                    try await context.save(&sync)
                }
            }
            try await confirmations.flush()
        } catch {
            // Whatever ended the sync, what the server holds of the trees written is recorded.
            try? await confirmations.flush()
            throw error
        }
    }

    private func loadTree(_ parentId: String, store: SmartStore) async throws -> (parent: JSONValue, children: [JSONValue])? {
        func entries(_ soup: String, _ field: String) async throws -> [JSONValue] {
            try await store.query(
                .smart(
                    "select {\(soup):_soup} from {\(soup)} where {\(soup):\(field)} = ? order by {\(soup):_soupEntryId}", pageSize: 100_000),
                arguments: [.string(parentId)]
            ).compactMap { $0.arrayValue?.first }
        }
        guard let entry = try await entries(parent.soupName, parent.idFieldName).first else { return nil }
        return await (entry, try entries(children.soupName, children.parentIdFieldName))
    }

    /// One tree, one composite request (more when OVERWRITE must recreate what the server lost:
    /// a child first, then its parent, at most three passes): plan, send, apply. Returns how
    /// many records failed.
    private func syncTree(
        _ parentEntry: JSONValue, _ childEntries: [JSONValue], options: SyncOptions, context: SyncContext, pass: Int,
        confirmations: TreeConfirmations, conflicts: inout Int
    ) async throws -> Int {
        let store = context.store
        var (parentEntry, childEntries) = (parentEntry, childEntries)
        if options.mergeMode.keepsLocalChanges, try await hasUnresolvedConflict(parentEntry, childEntries, context: context) {
            conflicts += try await holdTree(parentEntry, childEntries, found: [], options: options, context: context)
            return 0
        }
        if options.mergeMode == .mergeFields {
            let merged = try await mergeTree(parentEntry, childEntries, options: options, context: context)
            guard !merged.changedMeanwhile else { return 0 } // edited while merging: merged again next run
            guard merged.conflicts.isEmpty else {
                conflicts += try await holdTree(parentEntry, childEntries, found: merged.conflicts, options: options, context: context)
                return 0
            }
            (parentEntry, childEntries) = (merged.parent, merged.children)
        }
        if options.mergeMode != .overwrite {
            (parentEntry, childEntries) = try await stampUpdates(parentEntry, childEntries, options: options, context: context)
        }
        let parentRecord = SyncUpRecord(
            record: parentEntry, idFieldName: parent.idFieldName, modificationDateFieldName: parent.modificationDateFieldName)
        // Records the check found deleted on the server (and deleted locally): no request for them.
        var knownGone: Set<String> = []
        if options.mergeMode.keepsLocalChanges, parentRecord.action != .create, parentRecord.action != .deleteLocalOnly {
            let kids = childEntries.map {
                SyncUpRecord(record: $0, idFieldName: children.idFieldName, modificationDateFieldName: children.modificationDateFieldName)
            }
            let check = try await treeChangesOnServer(parentRecord, kids, client: context.client)
            guard check.conflicts.isEmpty else {
                conflicts += try await holdTree(parentEntry, childEntries, found: check.conflicts, options: options, context: context)
                return 0
            }
            knownGone = check.missing
        }
        let plan = try TreePlan(
            parent: parentEntry, children: childEntries, target: self, options: options, knownGone: knownGone,
            apiVersion: context.client.apiVersion, pass: pass)
        try await store.delete(plan.childDeletes, from: children.soupName)
        try await store.delete(plan.parentDeletes, from: parent.soupName)
        guard !plan.subrequests.isEmpty else { return 0 }

        let responses = try await sendTree(
            plan.subrequests, parentCreated: plan.parent.action == .create, parentIdField: children.parentIdFieldName,
            allOrNone: plan.allOrNone, client: context.client)
        let outcome = confirmations.add(plan.outcome(of: responses), plan: plan, options: options)
        try await write(outcome, plan: plan, store: store)
        if outcome.recreateParent || !outcome.recreateChildren.isEmpty {
            return outcome.failed
                + (try await recreate(
                    plan.parentEntryId, parentAgain: outcome.recreateParent, children: outcome.recreateChildren, childIds: plan.childIds,
                    options: options, context: context, pass: pass, confirmations: confirmations, conflicts: &conflicts))
        }
        return outcome.failed
    }

    /// Writes a tree's outcome, one transaction per soup, to each record as it is by then: a
    /// record edited while the tree was on the wire keeps the edit, dirty, on top of what the
    /// server now holds (which becomes its base), as a batched sync up does.
    private func write(_ outcome: TreeOutcome, plan: TreePlan, store: SmartStore) async throws {
        // Entry ids are per soup: the parents' and the children's are read apart.
        var childReads: [Int64: JSONValue] = [:]
        for (entryId, kid) in zip(plan.childIds, plan.kids) { childReads[entryId] = kid.record }
        for isChild in [false, true] {
            let side = TreeSide(self, isChild: isChild)
            let reads = isChild ? childReads : [plan.parentEntryId: plan.parent.record]
            var writes: [Int64: JSONValue] = [:]
            for record in isChild ? outcome.childUpserts + outcome.childErrors : outcome.parentUpserts + outcome.parentErrors {
                if let entryId = record["_soupEntryId"]?.int64Value { writes[entryId] = record }
            }
            let deletes = Set(isChild ? outcome.childDeletes : outcome.parentDeletes)
            let ids = Set(writes.keys).union(deletes).sorted()
            guard !ids.isEmpty else { continue }
            let (found, sent, idField) = (writes, reads, side.idFieldName)
            try await store.modify(ids, in: side.soupName, shadows: [ConflictShadows.base]) { edit in
                guard let now = edit.entry, let entryId = now["_soupEntryId"]?.int64Value else { return }
                if deletes.contains(entryId) {
                    edit.entry = nil
                    return
                }
                guard let kept = found[entryId], let read = sent[entryId] else { return }
                if SyncUpMerge.isUnchanged(now, since: read) {
                    edit.entry = kept
                } else if LocalFields.isDirty(kept) {
                    edit.entry?[LocalFields.lastError] = kept[LocalFields.lastError] // refused: the edit stays as it is
                } else {
                    edit.entry = SyncUpMerge.rebase(now, read: read, onto: kept, idFieldName: idField)
                    edit.shadows[ConflictShadows.base] = kept
                }
            }
        }
    }

    /// Records an attempt in each update of the tree about to be sent, after settling those an
    /// earlier run left (see ``UpdateAttempt``), in the parent's and the children's soups.
    private func stampUpdates(_ parentEntry: JSONValue, _ childEntries: [JSONValue], options: SyncOptions, context: SyncContext)
        async throws -> (JSONValue, [JSONValue])
    {
        var result: [[JSONValue]] = []
        for (entries, isChild) in [([parentEntry], false), (childEntries, true)] {
            let info = TreeSide(self, isChild: isChild)
            let stamped = await UpdateAttempt.stamping(
                entries, objectType: info.objectType, idFieldName: info.idFieldName,
                modificationDateFieldName: info.modificationDateFieldName,
                sentFields: { (try? fields($0, creating: false, isChild: isChild, options: options)) ?? [:] },
                confirmation: WriteConfirmation(
                    target: self, client: context.client, idFieldName: info.idFieldName,
                    modificationDateFieldName: info.modificationDateFieldName))
            try await stamped.write(in: info.soupName, store: context.store, modificationDateFieldName: info.modificationDateFieldName)
            result.append(stamped.records)
        }
        return (result[0].first ?? parentEntry, result[1])
    }

    /// Sends a tree's subrequests, 25 per composite request (Salesforce's limit): the first
    /// request carries the parent; when it creates the parent, later requests name its new id
    /// instead of `@{parent.id}`. A tree of more than 25 changes is not atomic (each request
    /// is); a failed parent create or an all-or-none failure stops the rest.
    private func sendTree(
        _ subrequests: [CompositeSubrequest], parentCreated: Bool, parentIdField: String, allOrNone: Bool, client: RestClient
    ) async throws -> [CompositeSubresponse] {
        var responses: [CompositeSubresponse] = []
        var newParentId: String?
        for start in stride(from: 0, to: subrequests.count, by: 25) {
            var chunk = Array(subrequests[start..<min(subrequests.count, start + 25)])
            if let newParentId {
                chunk = chunk.map { request in
                    var request = request
                    if request.body?[parentIdField] == "@{parent.id}" { request.body?[parentIdField] = .string(newParentId) }
                    return request
                }
            }
            let part = try await client.composite(chunk, allOrNone: allOrNone)
            responses += part
            let failed = part.contains { !$0.isSuccess }
            if start == 0, parentCreated {
                guard let created = part.first(where: { $0.referenceId == "parent" }), created.isSuccess,
                    let id = created.body["id"]?.stringValue
                else { break }
                newParentId = id
            }
            if failed && allOrNone { break }
        }
        return responses
    }

    /// Marks what the server lost as locally created (new local ids, children re-pointed) and
    /// runs the tree once more.
    private func recreate(
        _ parentEntryId: Int64, parentAgain: Bool, children: Set<Int>, childIds: [Int64], options: SyncOptions, context: SyncContext,
        pass: Int, confirmations: TreeConfirmations, conflicts: inout Int
    ) async throws -> Int {
        let store = context.store
        let (info, childInfo) = (self.parent, self.children)
        var kids = try await store.retrieve(childIds, from: childInfo.soupName)
        guard var parent = try await store.retrieve([parentEntryId], from: info.soupName).first else {
            // The parent was deleted (LOOKUP): lost children come back on their own, without a parent.
            return try await recreateOrphans(kids, lost: children, options: options, context: context, confirmations: confirmations)
        }
        markLost(parent: &parent, kids: &kids, parentAgain: parentAgain, lost: children)
        let savedParent = try await store.upsert(parent, in: info.soupName)
        let savedKids = try await store.upsert(kids, in: childInfo.soupName)
        return try await syncTree(
            savedParent, savedKids, options: options, context: context, pass: pass + 1, confirmations: confirmations,
            conflicts: &conflicts)
    }

    /// Creates the lost children (positions `lost` in `kids`) again on the server, without a
    /// parent, and stores them; returns how many the server refused (their errors recorded).
    private func recreateOrphans(
        _ kids: [JSONValue], lost: Set<Int>, options: SyncOptions, context: SyncContext, confirmations: TreeConfirmations
    ) async throws -> Int {
        let (store, client) = (context.store, context.client)
        let childInfo = self.children
        var failed = 0
        for index in lost where index < kids.count {
            var kid = kids[index]
            kid[childInfo.parentIdFieldName] = .null
            let record = SyncUpRecord(
                record: kid, idFieldName: childInfo.idFieldName, modificationDateFieldName: childInfo.modificationDateFieldName)
            var sent = try fields(record, creating: true, isChild: true, options: options)
            sent[childInfo.parentIdFieldName] = .null
            do {
                let id = try await client.create(childInfo.objectType, fields: .object(sent))
                try await store.upsert(record.cleaned(id: id), in: childInfo.soupName)
                if let entryId = kid["_soupEntryId"]?.int64Value {
                    confirmations.note(
                        entryId: entryId, serverId: id, sent: sent.filter { $0.key != childInfo.parentIdFieldName },
                        date: kid[childInfo.modificationDateFieldName], isChild: true)
                }
            } catch RestError.http(_, let errors, _) {
                let body = JSONValue.array(errors.map(\.json))
                guard TreePlan.isOwnError(body) else { continue }
                kid[LocalFields.lastError] = .string(body.jsonString)
                try await store.upsert(kid, in: childInfo.soupName)
                failed += 1
            }
        }
        return failed
    }

    /// Marks what the server lost as locally created: the parent again (`parentAgain`, a new
    /// local id its children point at), else the lost children (positions `lost`), with new local ids.
    private func markLost(parent: inout JSONValue, kids: inout [JSONValue], parentAgain: Bool, lost: Set<Int>) {
        let (info, childInfo) = (self.parent, self.children)
        if parentAgain {
            let localId = LocalFields.newLocalId()
            parent[info.idFieldName] = .string(localId)
            parent[LocalFields.local] = true
            parent[LocalFields.locallyCreated] = true
            for index in kids.indices {
                kids[index][childInfo.parentIdFieldName] = .string(localId)
                let deleted = kids[index][LocalFields.locallyDeleted] == true
                if relationshipType == .masterDetail && !deleted {
                    // The server deleted these with their parent.
                    kids[index][childInfo.idFieldName] = .string(LocalFields.newLocalId())
                    kids[index][LocalFields.locallyCreated] = true
                    kids[index][LocalFields.local] = true
                } else if !deleted {
                    kids[index][LocalFields.locallyUpdated] = true
                    kids[index][LocalFields.local] = true
                }
            }
        } else {
            for index in lost where index < kids.count {
                kids[index][childInfo.parentIdFieldName] = parent[info.idFieldName]
                kids[index][childInfo.idFieldName] = .string(LocalFields.newLocalId())
                kids[index][LocalFields.locallyCreated] = true
                kids[index][LocalFields.local] = true
            }
        }
    }

    /// LEAVE_IF_CHANGED and MERGE_FIELDS: which records of the tree the server changed since
    /// they were synced down, among those the tree sends (a clean record changed there is not
    /// sent, so it is no conflict; but under a MASTER_DETAIL parent deleted here, a child changed
    /// there is, as the parent's delete would take it along). A remote delete only matches a
    /// local delete, or the cascade that delete brings anyway. Children created locally do not
    /// count. Also returns the ids of records deleted on both sides.
    func treeChangesOnServer(_ parent: SyncUpRecord, _ kids: [SyncUpRecord], client: RestClient) async throws
        -> (missing: Set<String>, conflicts: [TreeConflict])
    {
        let (info, childInfo) = (self.parent, self.children)
        guard let parentId = parent.id, !LocalFields.isLocalId(parentId) else { return ([], []) }
        let parentDates = try await remoteDates(
            info.objectType, idField: info.idFieldName, dateField: info.modificationDateFieldName, ids: [parentId], client: client)
        let serverIds = kids.compactMap { kid in kid.id.flatMap { LocalFields.isLocalId($0) || kid.action == .deleteLocalOnly ? nil : $0 } }
        let childDates = try await remoteDates(
            childInfo.objectType, idField: childInfo.idFieldName, dateField: childInfo.modificationDateFieldName, ids: serverIds,
            client: client)
        let cascading = relationshipType == .masterDetail && parent.action == .delete
        /// How a record changed on the server, if it did.
        func change(_ local: SyncUpRecord, _ remote: Int64??, deletedWithParent: Bool) -> SyncConflict.Kind? {
            guard let remote else { return local.action == .delete || deletedWithParent || local.action == .none ? nil : .deletedOnServer }
            guard let localDate = local.lastModified, let remoteDate = remote, remoteDate > localDate else { return nil }
            return local.action == .delete || deletedWithParent ? .deletedLocally : .changedOnBothSides
        }
        var conflicts: [TreeConflict] = []
        if parent.action != .none, let kind = change(parent, parentDates[parentId], deletedWithParent: false) {
            conflicts.append(TreeConflict(record: parent, isChild: false, kind: kind))
        }
        var missing: Set<String> = parentDates[parentId] == nil ? [parentId] : []
        for kid in kids {
            guard let id = kid.id, serverIds.contains(id) else { continue }
            if childDates[id] == nil { missing.insert(id) }
            guard let kind = change(kid, childDates[id], deletedWithParent: cascading) else { continue }
            if kid.action != .none {
                conflicts.append(TreeConflict(record: kid, isChild: true, kind: kind))
            } else if cascading {
                // Clean here, changed there, and the parent's delete would take it along.
                conflicts.append(TreeConflict(record: kid, isChild: true, kind: .deletedLocally))
            }
        }
        return (missing, conflicts)
    }

    /// Modification dates on the server of these ids (absent: deleted; nil date: none).
    private func remoteDates(_ objectType: String, idField: String, dateField: String, ids: [String], client: RestClient) async throws
        -> [String: Int64?]
    {
        var dates: [String: Int64?] = [:]
        for record in try await RefreshSyncDownTarget.records(
            objectType, fields: [idField, dateField], idFieldName: idField, ids: ids, client: client)
        {
            if let id = record[idField]?.stringValue { dates[id] = record[dateField]?.stringValue.flatMap(SalesforceTime.parse) }
        }
        return dates
    }
}
