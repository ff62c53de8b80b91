import FastJSON
import SmartStore

/// An update sent whose outcome the client has not recorded yet, kept in the record's
/// `__update_attempt__` before the request leaves (LEAVE_IF_CHANGED and MERGE_FIELDS syncs, and
/// parent/children trees in those modes): the fields exactly as sent.
///
/// The outcome is recorded with the server's modification date (see ``WriteConfirmation``) and
/// the mark removed. A record still carrying one on a later sync up was sent by a run that died
/// (or could not read the server's version back): if the server holds what was sent, by the
/// syncing user, the record adopts the server's date before its current values go up, so the
/// earlier write is not taken for someone else's.
struct UpdateAttempt: Equatable {
    /// The fields exactly as sent.
    var sent: [String: JSONValue]

    var json: JSONValue { ["sent": .object(sent)] }

    /// The attempt a record carries; nil when it carries none or one this version cannot read.
    init?(_ record: JSONValue) {
        guard let sent = record[LocalFields.updateAttempt]?["sent"]?.objectValue else { return nil }
        self.sent = sent
    }

    init(sent: [String: JSONValue]) {
        self.sent = sent
    }
}

extension UpdateAttempt {
    /// Records stamped with the attempts about to be sent, and the writes that record them.
    struct Stamped {
        var records: [JSONValue]
        /// Modification dates adopted from attempts an earlier run left, by entry id.
        var dates: [Int64: JSONValue] = [:]
        /// The new attempts, by entry id.
        var stamps: [Int64: JSONValue] = [:]

        /// Writes the adopted dates, then the attempts, into `soup`.
        func write(in soup: String, store: SmartStore, modificationDateFieldName: String) async throws {
            if !dates.isEmpty, !modificationDateFieldName.isEmpty {
                try await store.setField(modificationDateFieldName, values: dates, in: soup)
            }
            if !stamps.isEmpty { try await store.setField(LocalFields.updateAttempt, values: stamps, in: soup) }
        }
    }

    /// Stamps each update among `records` (server id, type and entry id known) with the fields
    /// `sentFields` sends, after settling the attempts an earlier run left: where the server
    /// holds what that run sent, by this user, the record adopts the server's modification date
    /// first, so its own earlier write is not taken for someone else's. `objectType`: the
    /// records' type, when they do not say it (`attributes.type`).
    static func stamping(
        _ records: [JSONValue], objectType: String? = nil, idFieldName: String, modificationDateFieldName: String,
        sentFields: (SyncUpRecord) -> [String: JSONValue], confirmation: WriteConfirmation
    ) async -> Stamped {
        let items = records.map { SyncUpRecord(record: $0, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName) }
        let updates = items.indices.filter {
            items[$0].action == .update && items[$0].record["_soupEntryId"]?.int64Value != nil && items[$0].id != nil
        }
        var stamped = Stamped(records: records)
        guard !updates.isEmpty else { return stamped }
        let earlier = updates.compactMap { index -> WrittenRecord? in
            guard let attempt = UpdateAttempt(items[index].record), let type = objectType ?? items[index].objectType,
                let id = items[index].id
            else {
                return nil
            }
            return WrittenRecord(objectType: type, serverId: id, sentFields: attempt.sent)
        }
        let verdicts = await confirmation.verdicts(earlier)
        for index in updates {
            guard let entryId = records[index]["_soupEntryId"]?.int64Value else { continue }
            if UpdateAttempt(records[index]) != nil, let id = items[index].id, case .adopt(let date, _)? = verdicts[id],
                !modificationDateFieldName.isEmpty
            {
                stamped.records[index][modificationDateFieldName] = date
                stamped.dates[entryId] = date
            }
            let stamp = UpdateAttempt(sent: sentFields(items[index])).json
            stamped.records[index][LocalFields.updateAttempt] = stamp
            stamped.stamps[entryId] = stamp
        }
        return stamped
    }
}
