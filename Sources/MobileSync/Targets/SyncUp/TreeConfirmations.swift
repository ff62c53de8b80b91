import FastJSON
import SalesforceREST
import SmartStore

/// The records a parent/children sync up wrote, read back from the server in bulk (see
/// ``WriteConfirmation``): one read per object type for up to ``batchSize`` records of many
/// trees, instead of two per tree.
///
/// A tree's outcome is written at once, its updates keeping their attempt mark; ``flush()``
/// then gives each record the server's modification date where the server holds the write (and
/// the record's date is still the one written), and removes the marks the server answered for.
/// A run that dies before the flush leaves the marks for the next sync up to settle.
final class TreeConfirmations {
    /// Records read back per flush at most (a flush comes after the tree that reaches it).
    static let batchSize = 200

    private struct Pending {
        let entryId: Int64
        let write: WrittenRecord
        /// The record's modification date as the outcome wrote it.
        let date: JSONValue?
    }

    private let target: ParentChildrenSyncUpTarget
    private let context: SyncContext
    private var parents: [Pending] = []
    private var children: [Pending] = []

    init(target: ParentChildrenSyncUpTarget, context: SyncContext) {
        self.target = target
        self.context = context
    }

    /// Records waiting to be read back.
    var count: Int { parents.count + children.count }

    /// Takes note of the records a tree's outcome writes (creates and updates that succeeded),
    /// and returns the outcome with the attempt marks of its updates kept until the flush.
    func add(_ outcome: TreeOutcome, plan: TreePlan, options: SyncOptions) -> TreeOutcome {
        var outcome = outcome
        let kids = Dictionary(zip(plan.childIds, plan.kids), uniquingKeysWith: { first, _ in first })
        for isChild in [false, true] {
            let side = TreeSide(target, isChild: isChild)
            var upserts = isChild ? outcome.childUpserts : outcome.parentUpserts
            for (index, upsert) in upserts.enumerated() {
                guard let entryId = upsert["_soupEntryId"]?.int64Value, let item = isChild ? kids[entryId] : plan.parent,
                    item.action == .create || item.action == .update, let id = upsert[side.idFieldName]?.stringValue
                else { continue }
                var sent = (try? target.fields(item, creating: item.action == .create, isChild: isChild, options: options)) ?? [:]
                if isChild { sent[target.children.parentIdFieldName] = nil } // sent as a reference to the parent
                upserts[index][LocalFields.updateAttempt] = item.record[LocalFields.updateAttempt]
                note(entryId: entryId, serverId: id, sent: sent, date: upsert[side.modificationDateFieldName], isChild: isChild)
            }
            if isChild { outcome.childUpserts = upserts } else { outcome.parentUpserts = upserts }
        }
        return outcome
    }

    /// Takes note of one record written outside a tree's request (a child created on its own).
    func note(entryId: Int64, serverId: String, sent: [String: JSONValue], date: JSONValue?, isChild: Bool) {
        guard !LocalFields.isLocalId(serverId) else { return }
        let side = TreeSide(target, isChild: isChild)
        let pending = Pending(
            entryId: entryId, write: WrittenRecord(objectType: side.objectType, serverId: serverId, sentFields: sent), date: date)
        if isChild { children.append(pending) } else { parents.append(pending) }
    }

    /// Reads the noted records back and records what the server said (see the type's summary).
    func flush() async throws {
        for isChild in [false, true] {
            let pending = isChild ? children : parents
            guard !pending.isEmpty else { continue }
            if isChild { children = [] } else { parents = [] }
            let side = TreeSide(target, isChild: isChild)
            let verdicts = await WriteConfirmation(
                target: target, client: context.client, idFieldName: side.idFieldName,
                modificationDateFieldName: side.modificationDateFieldName
            ).verdicts(pending.map(\.write))
            var settled: [Int64: (verdict: WriteConfirmation.Verdict, date: JSONValue?)] = [:]
            for item in pending { if let verdict = verdicts[item.write.serverId] { settled[item.entryId] = (verdict, item.date) } }
            guard !settled.isEmpty else { continue }
            let (found, dateField) = (settled, side.modificationDateFieldName)
            try await context.store.modify(found.keys.sorted(), in: side.soupName) { entry in
                guard let entryId = entry?["_soupEntryId"]?.int64Value, let (verdict, written) = found[entryId] else { return }
                if case .adopt(let date, _) = verdict, !dateField.isEmpty, entry?[dateField] == written { entry?[dateField] = date }
                entry?[LocalFields.updateAttempt] = nil
            }
        }
    }
}

/// The parents or the children of a tree: their type, soup and field names.
struct TreeSide {
    let objectType: String
    let soupName: String
    let idFieldName: String
    let modificationDateFieldName: String

    init(_ target: ParentChildrenSyncUpTarget, isChild: Bool) {
        if isChild {
            let info = target.children
            (objectType, soupName, idFieldName, modificationDateFieldName) =
                (info.objectType, info.soupName, info.idFieldName, info.modificationDateFieldName)
        } else {
            let info = target.parent
            (objectType, soupName, idFieldName, modificationDateFieldName) =
                (info.objectType, info.soupName, info.idFieldName, info.modificationDateFieldName)
        }
    }
}
