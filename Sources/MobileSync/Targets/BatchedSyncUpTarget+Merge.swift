import FastJSON
import SalesforceREST
import SalesforceWire
import SmartStore

extension BatchedSyncUpTarget {
    /// MERGE_FIELDS: the plan of each record of a batch, against the server's version of its
    /// updates and deletes (read once per object type) and its base (see ``ThreeWayMerge``).
    ///
    /// An update the server did not change since the local copy sends the fields changed here
    /// (all the listed ones, without a base); otherwise the three versions are merged: the fields
    /// changed here only are sent, those changed on the server only are taken, and fields changed
    /// on both sides to different values make a conflict. A delete meets a server change as a
    /// conflict; an update meets a server delete as one.
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
            let fields = [idField, dateField, WriteConfirmation.lastModifiedById] + list.filter { $0 != idField && $0 != dateField }
            for (id, record) in try await serverRecords(type, ids: ids, fields: fields.filter { !$0.isEmpty }, client: context.client) {
                server[id] = record
            }
        }
        return items.map { item in
            guard item.action == .update || item.action == .delete, let id = item.id else {
                return .send(payload: item.record, merged: nil)
            }
            let theirs = server[id]
            let base = item.record["_soupEntryId"]?.int64Value.flatMap { bases[$0] }
            let serverDate = theirs?[dateField]?.stringValue.flatMap(SalesforceTime.parse)
            let unchangedOnServer = theirs != nil && serverDate != nil && item.lastModified.map { serverDate ?? 0 <= $0 } == true
            if item.action == .delete {
                guard let theirs else { return .gone }
                return unchangedOnServer ? .send(payload: item.record, merged: nil) : .conflict(.deletedLocally, fields: [], server: theirs)
            }
            guard let theirs else { return .conflict(.deletedOnServer, fields: [], server: nil) }
            var merged = item.record
            var toSend: [String]
            if unchangedOnServer {
                toSend = list.filter { field in base.map { !CreateAttempt.same(item.record[field] ?? .null, $0[field] ?? .null) } ?? true }
            } else {
                switch ThreeWayMerge.merge(base: base, local: item.record, server: theirs, fields: list) {
                case .conflict(let fields): return .conflict(.changedOnBothSides, fields: fields, server: theirs)
                case .merged(let record, let fields): (merged, toSend) = (record, fields)
                }
            }
            if !dateField.isEmpty, let date = theirs[dateField] { merged[dateField] = date }
            toSend.removeAll { $0 == idField || $0 == dateField || item.record[$0] == nil && merged[$0] == nil }
            guard !toSend.isEmpty else {
                return .settled(SyncUpRecord(record: merged, idFieldName: idField, modificationDateFieldName: dateField).cleaned(id: nil))
            }
            var payload = merged
            for field in list where !toSend.contains(field) && field != idField && field != dateField { payload[field] = nil }
            return .send(payload: payload, merged: merged)
        }
    }
}
