import FastJSON
import Locking
import SalesforceWire
import SmartStore

/// MERGE_FIELDS on the way down: server records meet the local records dirty here (which the
/// ingest left alone), field by field against their base (see ``ThreeWayMerge``).
///
/// A record whose fields merge takes the server's changes and keeps its own; it stays dirty
/// (its base becoming the server's version) unless nothing of its own is left to send. A field
/// changed on both sides to different values, or a server change meeting a local delete, is a
/// ``SyncConflict``: the local record is kept as it is, with the server's version beside it.
struct SyncDownMerge {
    let store: SmartStore
    let soup: String
    let idFieldName: String
    let modificationDateFieldName: String
    let syncId: Int64

    /// Merges the records of `incoming` whose local copy is dirty; returns the conflicts found
    /// (a record already in conflict gets the newer server version, and is not reported again).
    func merge(_ incoming: [JSONValue]) async throws -> [SyncConflict] {
        guard !incoming.isEmpty else { return [] }
        let dirty = try await store.dirtyRecordIds(soup: soup, idField: idFieldName)
        guard !dirty.isEmpty else { return [] }
        var servers: [Int64: JSONValue] = [:]
        for record in incoming {
            guard let id = record[idFieldName]?.stringValue, dirty.contains(id),
                let entryId = try await store.lookupSoupEntryId(soup: soup, path: idFieldName, value: .string(id))
            else { continue }
            servers[entryId] = record.objectValue.map { .object(LocalFields.serverFields(of: $0)) } ?? record
        }
        guard !servers.isEmpty else { return [] }
        let (soup, idField, dateField, syncId, found) = (soup, idFieldName, modificationDateFieldName, syncId, servers)
        let conflicts = Locked([SyncConflict]())
        try await store.modify(found.keys.sorted(), in: soup, shadows: [ConflictShadows.base, ConflictShadows.conflict]) { edit in
            guard let local = edit.entry, let entryId = local["_soupEntryId"]?.int64Value, let server = found[entryId],
                LocalFields.isDirty(local)
            else { return }
            let item = SyncUpRecord(record: local, idFieldName: idField, modificationDateFieldName: dateField)
            let base = edit.shadows[ConflictShadows.base]
            let fields = ThreeWayMerge.mergedFields(of: server, idFieldName: idField, modificationDateFieldName: dateField)
            let serverDate = server[dateField]?.stringValue.flatMap(SalesforceTime.parse)
            // Without a base, a server copy no newer than the local one is not a change there.
            if base == nil, let serverDate, let localDate = item.lastModified, serverDate <= localDate { return }
            var conflict: (SyncConflict.Kind, [String])?
            switch item.action {
            case .delete, .deleteLocalOnly:
                let changed = base.map { base in fields.contains { !CreateAttempt.same(server[$0] ?? .null, base[$0] ?? .null) } } ?? true
                if changed { conflict = (.deletedLocally, []) }
            case .create, .none:
                return
            case .update:
                switch ThreeWayMerge.merge(base: base, local: local, server: server, fields: fields) {
                case .conflict(let conflicting):
                    conflict = (.changedOnBothSides, conflicting)
                case .merged(var merged, let toSend):
                    if !dateField.isEmpty { merged[dateField] = server[dateField] }
                    merged[LocalFields.syncId] = .int(syncId)
                    merged[LocalFields.lastError] = nil
                    edit.shadows[ConflictShadows.conflict] = nil
                    if toSend.isEmpty {
                        edit.entry = SyncUpRecord(record: merged, idFieldName: idField, modificationDateFieldName: "").cleaned(id: nil)
                    } else {
                        edit.entry = merged
                        var theirs = local
                        for (field, value) in server.objectValue ?? [:] where field != "attributes" { theirs[field] = value }
                        edit.shadows[ConflictShadows.base] = theirs
                    }
                    return
                }
            }
            guard let (kind, conflicting) = conflict else { return }
            let isNew = edit.shadows[ConflictShadows.conflict] == nil
            let found = ConflictShadows.record(kind, fields: conflicting, server: server, comparing: fields, soup: soup, in: &edit)
            if isNew, let found { conflicts.withLock { $0.append(found) } }
        }
        return conflicts.current
    }

    /// The records of a page body at `recordsPath` (dot-separated; empty: the body is the array).
    static func records(in body: [UInt8], at recordsPath: String) throws -> [JSONValue] {
        var value = try JSONValue(parsing: body)
        for component in recordsPath.split(separator: ".") where !component.isEmpty {
            value = value[String(component)] ?? .null
        }
        return value.arrayValue ?? []
    }
}
