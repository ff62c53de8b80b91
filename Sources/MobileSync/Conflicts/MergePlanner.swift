import FastJSON
import SalesforceWire

/// MERGE_FIELDS on the way up, for one record: what to send given its base and the server's
/// version (see ``ThreeWayMerge``).
enum MergePlanner {
    /// The plan of `item` against `server` (its version on the server; nil: deleted there) and
    /// `base`, comparing `list`.
    ///
    /// An update the server did not change since the local copy sends the fields changed here
    /// (all the listed ones, without a base); otherwise the three versions are merged: the fields
    /// changed here only are sent, those changed on the server only are taken, and fields changed
    /// on both sides to different values make a conflict. A delete meets a server change as a
    /// conflict; an update meets a server delete as one. Creates are sent as they are.
    static func plan(_ item: SyncUpRecord, base: JSONValue?, server theirs: JSONValue?, list: [String]) -> SyncUpPlan {
        let (idField, dateField) = (item.idFieldName, item.modificationDateFieldName)
        guard item.action == .update || item.action == .delete, let id = item.id, !id.isEmpty, !LocalFields.isLocalId(id) else {
            return .send(payload: item.record, merged: nil)
        }
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

    /// The fields a sync up reads of the server's versions to merge `list`.
    static func serverFields(idFieldName: String, modificationDateFieldName: String, list: [String]) -> [String] {
        var fields = [idFieldName, modificationDateFieldName, WriteConfirmation.lastModifiedById].filter { !$0.isEmpty }
        for name in list where !fields.contains(name) && !name.contains(".") { fields.append(name) }
        return fields
    }
}
