import FastJSON
import SmartStore

extension SyncManager {
    /// After a sync up of `soups`: each live sync of one of them reads again the records whose
    /// changes it skipped while they were dirty (see ``LiveSyncInfo/pendingRereads``). A failure
    /// leaves them pending for its next batch.
    func rereadForLiveSyncs(of soups: [String]) async {
        for id in liveTasks.keys.sorted() {
            guard let sync = try? syncStatus(id: id), soups.contains(sync.soupName) else { continue }
            try? await rereadSkipped(id)
        }
    }

    /// Reads again, from the server, the live sync's pending records that are clean now (a
    /// sync up sent their local change), so that a change skipped while they were dirty
    /// reaches them: written unless dirty again or older than what the soup holds, and
    /// deleted (if still clean and untouched) when the query no longer returns them. Those
    /// still dirty stay pending; those gone from the soup are dropped.
    func rereadSkipped(_ id: Int64) async throws {
        guard let pending = try syncStatus(id: id)?.live?.pendingRereads, !pending.isEmpty else { return }
        let (sync, target) = try liveTarget(id)
        var settled: Set<String> = []
        let ids = pending.sorted()
        for start in stride(from: 0, to: ids.count, by: 200) {
            let chunk = Array(ids[start..<min(ids.count, start + 200)])
            let held = try heldRecords(chunk, soup: sync.soupName, idField: target.idFieldName)
            settled.formUnion(chunk.filter { held[$0] == nil })
            let clean = held.filter { !LocalFields.isDirty($0.value) }
            guard !clean.isEmpty else { continue }
            let stamp = try await store.takeStamp()
            let records = try await target.records(ids: clean.keys.sorted(), client: client)
            try await store.ingestPage(
                JSONValue.array(records).jsonBytes, into: sync.soupName, recordsPath: "", idPath: target.idFieldName,
                timestampPath: target.modificationDateFieldName, skipDirty: true, keepNewer: true,
                setFields: LocalFields.clean(syncId: sync.id), removeFields: LocalFields.ownedFields)
            let returned = Set(records.compactMap { $0[target.idFieldName]?.stringValue })
            let gone = clean.filter { !returned.contains($0.key) }.compactMap { $0.value["_soupEntryId"]?.int64Value }
            _ = try await SyncContext(manager: self, onUpdate: nil).deleteStillClean(
                gone, soup: sync.soupName, syncId: sync.id, writtenBefore: stamp)
            settled.formUnion(clean.keys)
        }
        try updateLiveNow(id) { $0.pendingRereads.subtract(settled) }
    }

    /// The soup's entries holding these server ids, by id.
    private func heldRecords(_ ids: [String], soup: String, idField: String) throws -> [String: JSONValue] {
        let sql = """
            select {\(soup):_soup} from {\(soup)}
            where {\(soup):\(idField)} in (\(Array(repeating: "?", count: ids.count).joined(separator: ",")))
            """
        var held: [String: JSONValue] = [:]
        for row in try store.query(.smart(sql, pageSize: ids.count), arguments: ids.map(JSONValue.string)) {
            guard let entry = row.arrayValue?.first, let id = entry[idField]?.stringValue else { continue }
            held[id] = entry
        }
        return held
    }
}
