import FastJSON

/// The MERGE_FIELDS merge of one record, field by field, as a pure function of its base (as
/// last synced), its local version and the server's.
///
/// A field changed on one side only takes that side's value; a field changed on both sides to
/// the same value is fine; only a field changed on both sides to different values is a
/// conflict. Values are compared as the server stores them (numbers by value, date-times by
/// instant, an empty string as null, a missing field as null).
enum ThreeWayMerge {
    enum Result: Equatable {
        /// No conflict: `merged` is the local record with the server's changes taken in;
        /// `toSend` are the fields where it differs from the server (what a sync up sends;
        /// empty: the record equals the server's version on every field compared).
        case merged(JSONValue, toSend: [String])
        /// These fields changed on both sides to different values.
        case conflict(fields: [String])
    }

    /// Merges `fields` of the three versions (other fields keep their local values). Without a
    /// base, which side changed a field cannot be told: every field that differs is a conflict.
    static func merge(base: JSONValue?, local: JSONValue, server: JSONValue, fields: [String]) -> Result {
        var merged = local
        var toSend: [String] = []
        var conflicts: [String] = []
        for field in fields {
            let (mine, theirs) = (local[field] ?? .null, server[field] ?? .null)
            if CreateAttempt.same(mine, theirs) { continue }
            guard let base else {
                conflicts.append(field)
                continue
            }
            let original = base[field] ?? .null
            if CreateAttempt.same(mine, original) {
                merged[field] = theirs
            } else if CreateAttempt.same(theirs, original) {
                toSend.append(field)
            } else {
                conflicts.append(field)
            }
        }
        return conflicts.isEmpty ? .merged(merged, toSend: toSend) : .conflict(fields: conflicts)
    }

    /// The fields a record's sides disagree on, for a conflict report: changed on both sides
    /// (with a base), or just different (without one).
    static func conflictingFields(base: JSONValue?, local: JSONValue, server: JSONValue, fields: [String]) -> [String] {
        if case .conflict(let conflicting) = merge(base: base, local: local, server: server, fields: fields) { return conflicting }
        return []
    }

    /// The fields of a server record a sync down merges: all but its id, the date that drives
    /// resyncs, `attributes` and bookkeeping (`__…__`, `_soup…`).
    static func mergedFields(of server: JSONValue, idFieldName: String, modificationDateFieldName: String) -> [String] {
        (server.objectValue.map { Array($0.keys) } ?? []).filter { name in
            name != idFieldName && name != modificationDateFieldName && name != "attributes" && !name.hasPrefix("_")
        }.sorted()
    }
}
