public import FastJSON
import SOQL
public import SalesforceREST
import SalesforceWire

/// Re-fetches the records already in a soup, by id, in slices (the SDK's `refresh` target).
public struct RefreshSyncDownTarget: FetchingSyncDownTarget {
    /// The sObject type of the soup's records.
    public let objectType: String
    /// The fields re-fetched (the id and modification date are always added).
    public let fieldlist: [String]
    /// The soup whose records are refreshed.
    public let soupName: String
    /// Ids per SOQL query (≤ 500: longer URLs are refused by some proxies).
    public let countIdsPerSoql: Int
    /// The field holding a record's id (`Id`), which the soup is read by.
    public let idFieldName: String
    /// The field holding a record's modification date: a resync re-fetches only records changed after the boundary.
    public let modificationDateFieldName: String
    /// The store whose soup is refreshed: bound to the sync's store when it runs.
    var store: SoupReader?

    /// A refresh target; `countIdsPerSoql` is clamped to 1…500.
    public init(
        objectType: String, fieldlist: [String], soupName: String, countIdsPerSoql: Int = 500, idFieldName: String = "Id",
        modificationDateFieldName: String = "LastModifiedDate"
    ) {
        self.objectType = objectType
        self.fieldlist = fieldlist
        self.soupName = soupName
        self.countIdsPerSoql = min(500, max(1, countIdsPerSoql))
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.store = nil
    }

    init(json: JSONValue, store: SoupReader?) throws {
        guard let type = json["sobjectType"]?.stringValue, let fields = json["fieldlist"]?.arrayValue?.compactMap(\.stringValue),
            let soup = json["soupName"]?.stringValue
        else {
            throw SyncError.invalidConfig("refresh target needs \"sobjectType\", \"fieldlist\" and \"soupName\"")
        }
        self.objectType = type
        self.fieldlist = fields
        self.soupName = soup
        self.countIdsPerSoql = min(500, max(1, Int(clamping: json["countIdsPerSoql"]?.int64Value ?? 500)))
        self.idFieldName = json["idFieldName"]?.stringValue ?? "Id"
        self.modificationDateFieldName = json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate"
        self.store = store
    }

    /// `{"type": "refresh", "sobjectType": …, "fieldlist": […], "soupName": …, "countIdsPerSoql": N}` with the field
    /// names.
    public var json: JSONValue {
        [
            "type": "refresh", "sobjectType": .string(objectType), "fieldlist": .array(fieldlist.map(JSONValue.string)),
            "soupName": .string(soupName),
            "countIdsPerSoql": .int(Int64(countIdsPerSoql)), "idFieldName": .string(idFieldName),
            "modificationDateFieldName": .string(modificationDateFieldName),
        ]
    }

    /// Refreshes the soup of the sync's store (the soup named by ``soupName``).
    public func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
        var bound = self
        bound.store = store ?? SoupReader(store: context.store)
        try await bound.fetchPages(&sync, context: context)
    }

    /// Continuation: the last local id refreshed. Each page re-fetches the next slice of local ids.
    public func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage {
        guard let store else { throw SyncError.invalidTarget("refresh target needs its store (run it through a SyncManager)") }
        let slice = try await store.ids(soup: soupName, path: idFieldName, after: continuation, limit: countIdsPerSoql)
        let total = try await store.count(soup: soupName)
        // The continuation comes from the slice as read: local ids, which the server cannot know,
        // are skipped, but a slice holding some (or only those) is not the last one.
        let next = slice.count == countIdsPerSoql ? slice.last : nil
        let ids = slice.filter { !LocalFields.isLocalId($0) }
        guard !ids.isEmpty else {
            return SyncDownPage(body: Array(#"{"totalSize":0,"done":true,"records":[]}"#.utf8), totalSize: total, next: next)
        }
        var fields = fieldlist
        for required in [modificationDateFieldName, idFieldName] where !fields.contains(required) { fields.insert(required, at: 0) }
        var filter = "\(idFieldName) IN (\(ids.map { Literal.string($0).description }.joined(separator: ", ")))"
        if maxTimeStamp > 0 { filter += " AND \(modificationDateFieldName) > \(SalesforceTime.format(maxTimeStamp, zulu: true))" }
        let page = try await client.query("SELECT \(fields.joined(separator: ", ")) FROM \(objectType) WHERE \(filter)")
        return SyncDownPage(body: page.body, totalSize: total, next: next)
    }

    /// Which of `localIds` still exist on the server (SOQL `Id IN`, 500 at a time).
    public func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> {
        try await Self.existing(objectType, idFieldName: idFieldName, ids: localIds, client: client)
    }

    /// Which of `ids` exist on the server, asked 500 at a time.
    static func existing(_ objectType: String, idFieldName: String, ids: [String], condition: String? = nil, client: RestClient)
        async throws -> Set<String>
    {
        Set(
            try await records(objectType, fields: [idFieldName], idFieldName: idFieldName, ids: ids, condition: condition, client: client)
                .compactMap { $0[idFieldName]?.stringValue })
    }

    /// The server records with these ids (local ids skipped), `fields` of each, asked 500 ids
    /// at a time (URLs stay under Salesforce's limit), every page followed.
    static func records(
        _ objectType: String, fields: [String], idFieldName: String, ids: [String], condition: String? = nil,
        client: RestClient
    ) async throws -> [JSONValue] {
        var found: [JSONValue] = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let slice = ids[start..<min(ids.count, start + 500)].filter { !LocalFields.isLocalId($0) }
            guard !slice.isEmpty else { continue }
            let list = slice.map { Literal.string($0).description }.joined(separator: ", ")
            found += try await client.allRecords(
                "SELECT \(fields.joined(separator: ", ")) FROM \(objectType) WHERE \(idFieldName) IN (\(list))"
                    + (condition.map { " AND (\($0))" } ?? ""))
        }
        return found
    }
}
