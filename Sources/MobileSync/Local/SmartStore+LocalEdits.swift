public import FastJSON
public import SmartStore

extension SmartStore {
    /// Creates a record locally, ready for sync up: a local id, `attributes.type`, and the
    /// dirty flags set. Returns the saved entry.
    @discardableResult
    public func createLocally(_ fields: [String: JSONValue], objectType: String, in soup: String, idField: String = "Id") throws
        -> JSONValue
    {
        var record = fields
        record[idField] = .string(LocalFields.newLocalId())
        record["attributes"] = ["type": .string(objectType)]
        record[LocalFields.local] = true
        record[LocalFields.locallyCreated] = true
        record[LocalFields.locallyUpdated] = false
        record[LocalFields.locallyDeleted] = false
        return try create(.object(record), in: soup)
    }

    /// Applies local changes to an entry (by `_soupEntryId`) and marks it updated.
    @discardableResult
    public func updateLocally(_ changes: [String: JSONValue], entryId: Int64, in soup: String) throws -> JSONValue {
        guard case .object(var record)? = try retrieve([entryId], from: soup).first else {
            throw SmartStoreError.entryNotFound(soup: soup, id: entryId)
        }
        for (key, value) in changes { record[key] = value }
        record[LocalFields.local] = true
        record[LocalFields.locallyUpdated] = true
        return try update(.object(record), id: entryId, in: soup)
    }

    /// Marks an entry deleted locally (it disappears on the next sync up, locally and on the server).
    @discardableResult
    public func deleteLocally(entryId: Int64, in soup: String) throws -> JSONValue {
        guard case .object(var record)? = try retrieve([entryId], from: soup).first else {
            throw SmartStoreError.entryNotFound(soup: soup, id: entryId)
        }
        record[LocalFields.local] = true
        record[LocalFields.locallyDeleted] = true
        return try update(.object(record), id: entryId, in: soup)
    }

    /// `_soupEntryId`s of the dirty entries of `soup` (`__local__` true, as any SDK writes it,
    /// the Android SDK's text `'true'` included), ascending. Read 5,000 at a time.
    public func dirtyEntryIds(soup: String) async throws -> [Int64] {
        var ids: [Int64] = []
        let spec = QuerySpec.smart(
            "select {\(soup):_soupEntryId} from {\(soup)} where \(LocalFields.dirtyPredicate(soup: soup)) and {\(soup):_soupEntryId} > ? order by {\(soup):_soupEntryId}",
            pageSize: 5000)
        while true {
            let rows = try await query(spec, arguments: [.int(ids.last ?? 0)])
            let page = rows.compactMap { $0.arrayValue?.first?.int64Value }
            guard !page.isEmpty else { return ids }
            ids += page
        }
    }

    /// The values of `idField` in the dirty entries of `soup`: the SDK's `getDirtyRecordIds`.
    /// Read 1,000 entries at a time.
    public func dirtyRecordIds(soup: String, idField: String = "Id") async throws -> Set<String> {
        let sql =
            "select {\(soup):\(idField)}, {\(soup):_soupEntryId} from {\(soup)} where \(LocalFields.dirtyPredicate(soup: soup)) and {\(soup):_soupEntryId} > ? order by {\(soup):_soupEntryId}"
        var values: Set<String> = []
        var after: Int64 = 0
        while true {
            let rows = try await query(.smart(sql, pageSize: 1000), arguments: [.int(after)])
            for row in rows { if let value = row.arrayValue?.first?.stringValue { values.insert(value) } }
            guard rows.count == 1000, let last = rows.last?.arrayValue?.last?.int64Value else { return values }
            after = last
        }
    }
}
