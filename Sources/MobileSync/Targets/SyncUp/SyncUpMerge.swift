import FastJSON

/// How an outcome meets a record edited while its change was on the wire.
enum SyncUpMerge {
    /// Whether a record is as it was sent (bookkeeping the sync itself writes aside).
    static func isUnchanged(_ now: JSONValue, since sent: JSONValue) -> Bool {
        var (now, sent) = (now, sent)
        for field in ["_soupLastModifiedDate", LocalFields.createAttempt, LocalFields.updateAttempt] {
            now[field] = nil
            sent[field] = nil
        }
        return now == sent
    }

    /// The record an outcome leaves, with what reading the server back said (`verdict`; nil:
    /// not known): the server's modification date where the server holds the write and nothing
    /// changed the local date meanwhile; the update attempt removed once answered, kept (as it
    /// was sent) otherwise, for the next sync up to settle.
    static func settled(
        _ record: JSONValue, verdict: WriteConfirmation.Verdict?, sent: JSONValue, now: JSONValue, modificationDateFieldName: String
    ) -> JSONValue {
        var settled = record
        switch verdict {
        case .adopt(let date, _)?:
            if !modificationDateFieldName.isEmpty, now[modificationDateFieldName] == sent[modificationDateFieldName] {
                settled[modificationDateFieldName] = date
            }
            settled[LocalFields.updateAttempt] = nil
        case .superseded?:
            settled[LocalFields.updateAttempt] = nil
        case nil:
            settled[LocalFields.updateAttempt] = now[LocalFields.updateAttempt]
        }
        return settled
    }

    /// A record edited while its change was on the wire: the edit stays, dirty, on top of what
    /// the server now holds (the server id of a create; a create becomes an update).
    static func editedDuringSync(_ now: JSONValue, synced: JSONValue, sent: JSONValue, idFieldName: String) -> JSONValue {
        var merged = now
        merged[idFieldName] = synced[idFieldName]
        if SyncUpRecord(record: sent, idFieldName: idFieldName, modificationDateFieldName: "").action == .create {
            merged[LocalFields.locallyCreated] = false
            merged[LocalFields.locallyUpdated] = true
            merged[LocalFields.local] = true
        }
        merged[LocalFields.createAttempt] = nil
        merged[LocalFields.lastError] = nil
        return merged
    }

    /// A record edited while its change was on the wire, on top of `kept`, what the store would
    /// hold had it not been (the outcome's record, or the merged one in MERGE_FIELDS mode): the
    /// fields edited meanwhile (where `now` differs from `read`, as read before sending) keep
    /// their new values, the others take `kept`'s; dirty, a create becoming an update.
    static func rebase(_ now: JSONValue, read: JSONValue, onto kept: JSONValue, idFieldName: String) -> JSONValue {
        var result = editedDuringSync(now, synced: kept, sent: read, idFieldName: idFieldName)
        for (field, value) in kept.objectValue ?? [:] where !field.hasPrefix("_") && field != "attributes" && now[field] == read[field] {
            result[field] = value
        }
        return result
    }
}
