import FastJSON
import SmartStore

/// What a record and its shadows become when its conflict is resolved: a pure function, so the
/// rules of ``ConflictResolution`` are unit-tested without a store.
struct ConflictResolver {
    let idFieldName: String
    let modificationDateFieldName: String

    /// Whether a merged record's `field` is left as the local record has it: the server id,
    /// `attributes`, the store's fields (`_soup…`) and the engine's (`__…__`).
    static func isKept(_ field: String, idFieldName: String) -> Bool {
        field == idFieldName || field == "attributes" || field.hasPrefix("_soup") || (field.hasPrefix("__") && field.hasSuffix("__"))
    }

    func resolved(_ conflict: SyncConflict, keeping resolution: ConflictResolution, shadows: [String: JSONValue]) -> EntryWithShadows {
        let local = conflict.local
        // The server's version as a whole record: the local one with the server's fields.
        let server = conflict.server.map { server in
            var record = local
            for (field, value) in server.objectValue ?? [:] where field != "attributes" { record[field] = value }
            return record
        }
        var kept: JSONValue
        switch resolution {
        case .server:
            guard var record = server else { return EntryWithShadows(entry: nil) }
            record = SyncUpRecord(record: record, idFieldName: idFieldName, modificationDateFieldName: "").cleaned(id: nil)
            return EntryWithShadows(entry: record)
        case .local:
            kept = local
        case .merged(let record):
            // Merged onto the local record: the fields given replace its own; the id, the
            // type and the store's and engine's fields stay.
            kept = local
            for (field, value) in record.objectValue ?? [:] where !Self.isKept(field, idFieldName: idFieldName) {
                kept[field] = value
            }
            kept["_soupEntryId"] = .int(conflict.entryId)
            kept[LocalFields.local] = true
            kept[LocalFields.locallyUpdated] = true
            kept[LocalFields.locallyDeleted] = false
        }
        kept[LocalFields.lastError] = nil
        kept[LocalFields.updateAttempt] = nil
        var result = EntryWithShadows(entry: kept, shadows: shadows)
        result.shadows[ConflictShadows.conflict] = nil
        if let server {
            if !modificationDateFieldName.isEmpty { result.entry?[modificationDateFieldName] = server[modificationDateFieldName] }
            result.shadows[ConflictShadows.base] = server
        } else {
            // Deleted on the server: created again, under a new local id.
            result.entry?[idFieldName] = .string(LocalFields.newLocalId())
            result.entry?[LocalFields.local] = true
            result.entry?[LocalFields.locallyCreated] = true
            result.entry?[LocalFields.locallyUpdated] = false
            result.entry?[LocalFields.locallyDeleted] = false
            if !modificationDateFieldName.isEmpty { result.entry?[modificationDateFieldName] = nil }
            result.shadows[ConflictShadows.base] = nil
        }
        return result
    }
}
