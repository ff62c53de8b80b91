import FastJSON

/// What a sync up does with one record of a batch.
enum SyncUpPlan: Sendable {
    /// Sent as `payload`. On success the store keeps `merged` (MERGE_FIELDS: the local changes
    /// on top of the server's version) when there is one, else the outcome's record.
    case send(payload: JSONValue, merged: JSONValue?)
    /// Not sent: in conflict, found before sending, with the server's version (nil: deleted there).
    case conflict(SyncConflict.Kind, fields: [String], server: JSONValue?)
    /// Not sent: equal to the server's version once merged (MERGE_FIELDS); the record becomes this, clean.
    case settled(JSONValue)
    /// Not sent: deleted here and gone on the server.
    case gone

    /// What goes to the target, if anything.
    var payload: JSONValue? {
        if case .send(let payload, _) = self { return payload }
        return nil
    }
}

/// A batch whose request is under way.
struct SentBatch {
    /// The records as read (and stamped) before sending: what an outcome is compared with to
    /// tell an edit made meanwhile.
    let records: [JSONValue]
    /// The plan of each record, in the order of `records`.
    let plans: [SyncUpPlan]
    /// The batch's entry ids, counted as done once applied (records in conflict included).
    let size: Int
    let idFieldName: String
    /// The outcomes of the records sent (``SyncUpPlan/send(payload:merged:)``), in order.
    let outcomes: Task<[SyncUpOutcome], any Error>
}
