public import FastJSON
import SOQL
public import SalesforceREST
import SalesforceWire

/// Sync down of the user's most recently used records of an object (the SDK's `mru` target).
public struct MruSyncDownTarget: FetchingSyncDownTarget {
    /// The sObject type whose recent items are synced.
    public let objectType: String
    /// The fields queried (the id and modification date are always added).
    public let fieldlist: [String]
    /// The field holding a record's id (`Id`).
    public let idFieldName: String
    /// The field holding a record's modification date (`LastModifiedDate`).
    public let modificationDateFieldName: String

    /// An MRU target; the field names default to the SDK's.
    public init(objectType: String, fieldlist: [String], idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate")
    {
        self.objectType = objectType
        self.fieldlist = fieldlist
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    init(json: JSONValue) throws {
        guard let type = json["sobjectType"]?.stringValue, let fields = json["fieldlist"]?.arrayValue?.compactMap(\.stringValue) else {
            throw SyncError.invalidConfig("mru target needs \"sobjectType\" and \"fieldlist\"")
        }
        self.init(
            objectType: type, fieldlist: fields, idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate")
    }

    /// `{"type": "mru", "sobjectType": …, "fieldlist": […]}` with the field names.
    public var json: JSONValue {
        [
            "type": "mru", "sobjectType": .string(objectType), "fieldlist": .array(fieldlist.map(JSONValue.string)),
            "idFieldName": .string(idFieldName), "modificationDateFieldName": .string(modificationDateFieldName),
        ]
    }

    var selectList: String {
        var fields = fieldlist
        for required in [modificationDateFieldName, idFieldName] where !fields.contains(required) { fields.insert(required, at: 0) }
        return fields.joined(separator: ", ")
    }

    /// The user's recent items of the type (`GET /sobjects/{type}`), then their fields by one SOQL `Id IN (…)` query:
    /// one page.
    public func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage {
        let ids = try await client.recentItemIds(objectType)
        let list = ids.isEmpty ? "''" : ids.map { Literal.string($0).description }.joined(separator: ", ")
        let page = try await client.query("SELECT \(selectList) FROM \(objectType) WHERE \(idFieldName) IN (\(list))")
        return SyncDownPage(body: page.body, totalSize: page.totalSize, next: nil)
    }

    /// Which of `localIds` still exist on the server (SOQL `Id IN`, 500 at a time).
    public func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> {
        try await RefreshSyncDownTarget.existing(objectType, idFieldName: idFieldName, ids: localIds, client: client)
    }
}
