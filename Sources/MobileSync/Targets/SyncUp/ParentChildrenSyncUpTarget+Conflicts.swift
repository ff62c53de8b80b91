import FastJSON
import Locking
import SalesforceREST
import SmartStore

/// A record of a tree found changed on both sides.
struct TreeConflict {
    let record: SyncUpRecord
    let isChild: Bool
    let kind: SyncConflict.Kind
    /// The fields changed on both sides, when already known (MERGE_FIELDS).
    var fields: [String] = []
    /// The server's version, when already read (MERGE_FIELDS); `.some(nil)`: deleted there.
    var server: JSONValue?? = nil
}

extension ParentChildrenSyncUpTarget {
    /// A tree is sent whole or not at all: when records of it are in conflict (`found` now, or
    /// earlier and not resolved yet), the conflicts are recorded (with the server's versions,
    /// read once per side unless known), its other dirty records are marked as held by them,
    /// and nothing is sent. Returns how many dirty records the tree holds back.
    func holdTree(
        _ parentEntry: JSONValue, _ childEntries: [JSONValue], found: [TreeConflict], options: SyncOptions, context: SyncContext
    ) async throws -> Int {
        var held = 0
        var reported: [SyncConflict] = []
        for isChild in [false, true] {
            let side = TreeSide(self, isChild: isChild)
            let entries = isChild ? childEntries : [parentEntry]
            let list =
                (isChild ? (childrenUpdateFieldlist ?? childrenCreateFieldlist) : (updateFieldlist ?? createFieldlist)) ?? options.fieldlist
                ?? []
            let conflicts = found.filter { $0.isChild == isChild }
            var servers: [String: JSONValue] = [:]
            let unread = conflicts.filter { $0.server == nil && $0.kind != .deletedOnServer }.compactMap(\.record.id)
            if !unread.isEmpty {
                let fields = [side.idFieldName, side.modificationDateFieldName, WriteConfirmation.lastModifiedById] + list
                servers = try await serverRecords(
                    side.objectType, ids: unread, fields: Array(Set(fields.filter { !$0.isEmpty && !$0.contains(".") })).sorted(),
                    client: context.client)
            }
            var byEntry: [Int64: (kind: SyncConflict.Kind, fields: [String], server: JSONValue?)] = [:]
            for conflict in conflicts {
                guard let entryId = conflict.record.record["_soupEntryId"]?.int64Value else { continue }
                let server: JSONValue? = conflict.server ?? conflict.record.id.flatMap { servers[$0] }
                byEntry[entryId] = (conflict.kind, conflict.fields, conflict.kind == .deletedOnServer ? nil : server)
            }
            let dirty = entries.filter { LocalFields.isDirty($0) }.compactMap { $0["_soupEntryId"]?.int64Value }
            // The dirty records, and a clean child in conflict (changed there, taken along by its parent's delete).
            let touched = Set(dirty).union(byEntry.keys).sorted()
            held += touched.count
            guard !touched.isEmpty else { continue }
            let (soup, recorded) = (side.soupName, byEntry)
            let tally = Locked([SyncConflict]())
            let compared = list.filter { $0 != side.idFieldName && $0 != side.modificationDateFieldName && !$0.contains(".") }
            try await context.store.modify(touched, in: soup, shadows: [ConflictShadows.base, ConflictShadows.conflict]) { edit in
                guard let now = edit.entry, let entryId = now["_soupEntryId"]?.int64Value else { return }
                guard let (kind, known, server) = recorded[entryId] else {
                    // Not in conflict itself: held with its tree, saying why (unless already in conflict).
                    if edit.shadows[ConflictShadows.conflict] == nil { edit.entry?[LocalFields.lastError] = ConflictShadows.heldInTree() }
                    return
                }
                if let conflict = ConflictShadows.record(kind, fields: known, server: server, comparing: compared, soup: soup, in: &edit) {
                    tally.withLock { $0.append(conflict) }
                }
            }
            reported += tally.current
        }
        await context.report(reported)
        return held
    }

    /// Whether a record of the tree is in conflict from an earlier run, not resolved yet.
    func hasUnresolvedConflict(_ parentEntry: JSONValue, _ childEntries: [JSONValue], context: SyncContext) async throws -> Bool {
        let parentIds = [parentEntry].compactMap { $0["_soupEntryId"]?.int64Value }
        let childIds = childEntries.compactMap { $0["_soupEntryId"]?.int64Value }
        let store = context.store
        if try await !store.shadows(ConflictShadows.conflict, of: parentIds, in: parent.soupName).isEmpty { return true }
        return try await !store.shadows(ConflictShadows.conflict, of: childIds, in: children.soupName).isEmpty
    }
}

/// A side's merged records to write, by entry id, with the base each gets (the server's version) when dirty.
private typealias MergedWrites = [Int64: (merged: JSONValue, base: JSONValue?)]

extension ParentChildrenSyncUpTarget {
    /// MERGE_FIELDS: each record of the tree the server changed is merged with the server's
    /// version first (``MergePlanner``); the merged records are written (dirty, on top of the
    /// server's version, which becomes their base) and the tree then goes up as if nothing had
    /// changed there, each update conditional on that version. Returns the tree as written, or
    /// the records that conflict (nothing written then).
    func mergeTree(_ parentEntry: JSONValue, _ childEntries: [JSONValue], options: SyncOptions, context: SyncContext) async throws
        -> (parent: JSONValue, children: [JSONValue], conflicts: [TreeConflict], changedMeanwhile: Bool)
    {
        var result: [[JSONValue]] = [[parentEntry], childEntries]
        var conflicts: [TreeConflict] = []
        var writes: [(side: TreeSide, isChild: Bool, records: MergedWrites)] = []
        for isChild in [false, true] {
            let side = TreeSide(self, isChild: isChild)
            guard
                let merged = try await mergeSide(
                    result[isChild ? 1 : 0], side: side, isChild: isChild, options: options, context: context)
            else { continue }
            result[isChild ? 1 : 0] = merged.entries
            conflicts += merged.conflicts
            writes.append((side, isChild, merged.written))
        }
        guard conflicts.isEmpty else { return (parentEntry, childEntries, conflicts, false) }
        let edited = try await writeMerged(writes, parentEntry: parentEntry, childEntries: childEntries, context: context)
        return (result[0].first ?? parentEntry, result[1], [], edited)
    }

    /// Merges one side's records the server may have changed with the server's versions: the
    /// entries as merged, the conflicts, and the records to write; nil when it updates or deletes no server record.
    private func mergeSide(_ entries: [JSONValue], side: TreeSide, isChild: Bool, options: SyncOptions, context: SyncContext) async throws
        -> (entries: [JSONValue], conflicts: [TreeConflict], written: MergedWrites)?
    {
        var entries = entries
        var conflicts: [TreeConflict] = []
        let list =
            (isChild ? (childrenUpdateFieldlist ?? childrenCreateFieldlist) : (updateFieldlist ?? createFieldlist)) ?? options.fieldlist
            ?? []
        let items = entries.map {
            SyncUpRecord(record: $0, idFieldName: side.idFieldName, modificationDateFieldName: side.modificationDateFieldName)
        }
        let ids = items.filter { $0.action == .update || $0.action == .delete }.compactMap(\.id).filter { !LocalFields.isLocalId($0) }
        guard !ids.isEmpty else { return nil }
        let servers = try await serverRecords(
            side.objectType, ids: ids,
            fields: MergePlanner.serverFields(
                idFieldName: side.idFieldName, modificationDateFieldName: side.modificationDateFieldName, list: list),
            client: context.client)
        let bases = try await context.store.shadows(
            ConflictShadows.base, of: entries.compactMap { $0["_soupEntryId"]?.int64Value }, in: side.soupName)
        var written: MergedWrites = [:]
        for (index, item) in items.enumerated() {
            guard let entryId = item.record["_soupEntryId"]?.int64Value else { continue }
            let theirs = item.id.flatMap { servers[$0] }
            switch MergePlanner.plan(item, base: bases[entryId], server: theirs, list: list) {
            case .conflict(let kind, let fields, let server):
                conflicts.append(TreeConflict(record: item, isChild: isChild, kind: kind, fields: fields, server: .some(server)))
            case .send(_, let merged?) where merged != item.record:
                var base = item.record
                for (field, value) in theirs?.objectValue ?? [:] where field != "attributes" { base[field] = value }
                written[entryId] = (merged, theirs == nil ? nil : base)
                entries[index] = merged
            case .settled(let clean):
                written[entryId] = (clean, nil)
                entries[index] = clean
            default:
                continue
            }
        }
        return (entries, conflicts, written)
    }

    /// Writes each side's merged records (one transaction per soup) unless edited since they were
    /// loaded; returns whether one was.
    private func writeMerged(
        _ writes: [(side: TreeSide, isChild: Bool, records: MergedWrites)], parentEntry: JSONValue, childEntries: [JSONValue],
        context: SyncContext
    ) async throws -> Bool {
        let edited = Locked(false)
        for (side, isChild, records) in writes where !records.isEmpty {
            // Entry ids are per soup: each side's records as loaded.
            let loaded = Dictionary(
                (isChild ? childEntries : [parentEntry]).compactMap { entry in entry["_soupEntryId"]?.int64Value.map { ($0, entry) } },
                uniquingKeysWith: { first, _ in first })
            let found = records
            try await context.store.modify(found.keys.sorted(), in: side.soupName, shadows: [ConflictShadows.base]) { edit in
                guard let now = edit.entry, let entryId = now["_soupEntryId"]?.int64Value, let (merged, base) = found[entryId],
                    let read = loaded[entryId]
                else { return }
                // Edited while the server was read: not overwritten; the tree waits for the next run.
                guard SyncUpMerge.isUnchanged(now, since: read) else { return edited.withLock { $0 = true } }
                edit.entry = merged
                if let base, LocalFields.isDirty(merged) { edit.shadows[ConflictShadows.base] = base }
            }
        }
        return edited.current
    }
}
