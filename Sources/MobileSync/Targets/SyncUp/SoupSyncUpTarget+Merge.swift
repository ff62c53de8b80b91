import FastJSON
import SalesforceREST
import SalesforceWire
import SmartStore

extension SoupSyncUpTarget {
    /// MERGE_FIELDS: the plan of each record of a batch (``MergePlanner``), against the server's
    /// version of its updates and deletes (read once per object type) and its base.
    func mergePlans(_ records: [JSONValue], options: SyncOptions, soup: String, context: SyncContext) async throws -> [SyncUpPlan] {
        let (idField, dateField) = (idFieldName, modificationDateFieldName)
        let items = records.map { SyncUpRecord(record: $0, idFieldName: idField, modificationDateFieldName: dateField) }
        let list = updateFields(options: options) ?? []
        let entryIds = records.compactMap { $0["_soupEntryId"]?.int64Value }
        let bases = try await context.store.shadows(ConflictShadows.base, of: entryIds, in: soup)
        var wanted: [String: [String]] = [:]
        for item in items where item.action == .update || item.action == .delete {
            if let id = item.id, let type = item.objectType { wanted[type, default: []].append(id) }
        }
        var server: [String: JSONValue] = [:]
        for (type, ids) in wanted {
            let fields = MergePlanner.serverFields(idFieldName: idField, modificationDateFieldName: dateField, list: list)
            for (id, record) in try await serverRecords(type, ids: ids, fields: fields, client: context.client) {
                server[id] = record
            }
        }
        return items.map { item in
            let base = item.record["_soupEntryId"]?.int64Value.flatMap { bases[$0] }
            let theirs = item.id.flatMap { server[$0] }
            return MergePlanner.plan(item, base: base, server: theirs, list: list)
        }
    }
}
