public import FastJSON
public import SmartStore

extension SmartStore {
    /// Creates a record locally, ready for sync up: a local id, `attributes.type`, and the
    /// dirty flags set. Returns the saved entry.
    @discardableResult
    public func createLocally(_ fields: [String: JSONValue], objectType: String, in soup: String, idField: String = "Id") throws
        -> JSONValue
    {
        try create(Self.locallyCreated(fields, objectType: objectType, idField: idField), in: soup)
    }

    /// Creates a record locally without blocking the caller's thread; see
    /// ``createLocally(_:objectType:in:idField:)-(_,_,_,_)``.
    @discardableResult
    public func createLocally(_ fields: [String: JSONValue], objectType: String, in soup: String, idField: String = "Id") async throws
        -> JSONValue
    {
        try await create(Self.locallyCreated(fields, objectType: objectType, idField: idField), in: soup)
    }

    private static func locallyCreated(_ fields: [String: JSONValue], objectType: String, idField: String) -> JSONValue {
        var record = fields
        record[idField] = .string(LocalFields.newLocalId())
        record["attributes"] = ["type": .string(objectType)]
        record[LocalFields.local] = true
        record[LocalFields.locallyCreated] = true
        record[LocalFields.locallyUpdated] = false
        record[LocalFields.locallyDeleted] = false
        return .object(record)
    }

    /// Applies local changes to an entry (by `_soupEntryId`) and marks it updated, in one
    /// transaction (a sync writing the entry meanwhile cannot undo the edit).
    @discardableResult
    public func updateLocally(_ changes: [String: JSONValue], entryId: Int64, in soup: String) throws -> JSONValue {
        try modify(entryId, in: soup, Self.marking(LocalFields.locallyUpdated, changes: changes))
    }

    /// Edits an entry locally without blocking the caller's thread; see
    /// ``updateLocally(_:entryId:in:)-(_,_,_)``.
    @discardableResult
    public func updateLocally(_ changes: [String: JSONValue], entryId: Int64, in soup: String) async throws -> JSONValue {
        try await modify(entryId, in: soup, Self.marking(LocalFields.locallyUpdated, changes: changes))
    }

    /// The change of a local edit: `changes` applied, the record dirty and `flag` set.
    private static func marking(_ flag: String, changes: [String: JSONValue] = [:]) -> @Sendable (inout JSONValue) throws -> Void {
        { record in
            guard case .object(var members) = record else { throw SmartStoreError.malformedJSON("The entry is not a JSON object") }
            for (key, value) in changes { members[key] = value }
            members[LocalFields.local] = true
            members[flag] = true
            record = .object(members)
        }
    }

    /// Marks an entry deleted locally (it disappears on the next sync up, locally and on the
    /// server), in one transaction.
    @discardableResult
    public func deleteLocally(entryId: Int64, in soup: String) throws -> JSONValue {
        try modify(entryId, in: soup, Self.marking(LocalFields.locallyDeleted))
    }

    /// Marks an entry deleted locally without blocking the caller's thread; see
    /// ``deleteLocally(entryId:in:)-(_,_)``.
    @discardableResult
    public func deleteLocally(entryId: Int64, in soup: String) async throws -> JSONValue {
        try await modify(entryId, in: soup, Self.marking(LocalFields.locallyDeleted))
    }

    /// Marks entries deleted locally, all in one transaction: every one or none. An id with no
    /// entry is skipped.
    ///
    /// - Returns: the entries as they are now (read after the transaction), in the order of `entryIds`.
    @discardableResult
    public func deleteLocally(entryIds: [Int64], in soup: String) async throws -> [JSONValue] {
        let mark = Self.marking(LocalFields.locallyDeleted)
        try await modify(entryIds, in: soup) { entry in
            guard var record = entry else { return }
            try mark(&record)
            entry = record
        }
        return try await retrieve(entryIds, from: soup)
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
