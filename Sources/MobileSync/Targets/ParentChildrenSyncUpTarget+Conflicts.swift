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
            let list = (isChild ? (childrenUpdateFieldlist ?? childrenCreateFieldlist) : (updateFieldlist ?? createFieldlist)) ?? options.fieldlist ?? []
            let conflicts = found.filter { $0.isChild == isChild }
            var servers: [String: JSONValue] = [:]
            let unread = conflicts.filter { $0.server == nil && $0.kind != .deletedOnServer }.compactMap(\.record.id)
            if !unread.isEmpty {
                let fields = [side.idFieldName, side.modificationDateFieldName, WriteConfirmation.lastModifiedById] + list
                servers = try await serverRecords(side.objectType, ids: unread, fields: Array(Set(fields.filter { !$0.isEmpty && !$0.contains(".") })).sorted(), client: context.client)
            }
            var byEntry: [Int64: (kind: SyncConflict.Kind, fields: [String], server: JSONValue?)] = [:]
            for conflict in conflicts {
                guard let entryId = conflict.record.record["_soupEntryId"]?.int64Value else { continue }
                let server: JSONValue? = conflict.server ?? conflict.record.id.flatMap { servers[$0] }
                byEntry[entryId] = (conflict.kind, conflict.fields, conflict.kind == .deletedOnServer ? nil : server)
            }
            let dirty = entries.filter { LocalFields.isDirty($0) }.compactMap { $0["_soupEntryId"]?.int64Value }
            held += dirty.count
            guard !dirty.isEmpty else { continue }
            let (soup, recorded) = (side.soupName, byEntry)
            let tally = Locked([SyncConflict]())
            try await context.store.modify(dirty, in: soup, shadows: [ConflictShadows.base, ConflictShadows.conflict]) { edit in
                guard let now = edit.entry, let entryId = now["_soupEntryId"]?.int64Value else { return }
                guard let (kind, known, server) = recorded[entryId] else {
                    // Not in conflict itself: held with its tree, saying why (unless already in conflict).
                    if edit.shadows[ConflictShadows.conflict] == nil { edit.entry?[LocalFields.lastError] = ConflictShadows.heldInTree() }
                    return
                }
                var fields = known
                if fields.isEmpty, kind == .changedOnBothSides, let server {
                    fields = ThreeWayMerge.conflictingFields(base: edit.shadows[ConflictShadows.base], local: now, server: server, fields: list)
                }
                let at = ConflictShadows.now()
                edit.entry?[LocalFields.lastError] = ConflictShadows.lastError(kind: kind, fields: fields)
                edit.entry?[LocalFields.updateAttempt] = nil
                edit.shadows[ConflictShadows.conflict] = ConflictShadows.document(kind: kind, fields: fields, server: server, at: at)
                let conflict = SyncConflict(
                    soupName: soup, entryId: entryId, kind: kind, fields: fields, local: edit.entry ?? now, server: server,
                    base: edit.shadows[ConflictShadows.base], detectedAt: at)
                tally.withLock { $0.append(conflict) }
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
