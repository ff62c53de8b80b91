public import FastJSON
import SOQL
public import SalesforceREST
import SalesforceWire

/// Sync down with a SOSL search (the SDK's `sosl` target): one page, no incremental resync.
public struct SoslSyncDownTarget: FetchingSyncDownTarget {
    /// The SOSL search (`FIND {…} IN … RETURNING …`).
    public let query: String
    /// The field holding a record's id (`Id`).
    public let idFieldName: String
    /// The field holding a record's modification date (`LastModifiedDate`).
    public let modificationDateFieldName: String

    /// A SOSL target; the field names default to the SDK's.
    public init(query: String, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate") {
        self.query = query
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    init(json: JSONValue) throws {
        guard let query = json["query"]?.stringValue else { throw SyncError.invalidConfig("sosl target needs a \"query\"") }
        self.init(
            query: query, idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate")
    }

    /// `{"type": "sosl", "query": …}` with the field names.
    public var json: JSONValue {
        [
            "type": "sosl", "query": .string(query), "idFieldName": .string(idFieldName),
            "modificationDateFieldName": .string(modificationDateFieldName),
        ]
    }

    /// Runs the search: one page of `searchRecords`, whatever the boundary.
    public func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage {
        let body = try await client.search(query)
        let count = try JSONValue(parsing: body)["searchRecords"]?.arrayValue?.count ?? 0
        return SyncDownPage(body: body, recordsPath: "searchRecords", totalSize: count, next: nil)
    }

    /// The search's current results among `localIds` (the search is run again).
    public func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> {
        let records = try JSONValue(parsing: try await client.search(query))["searchRecords"]?.arrayValue ?? []
        return Set(records.compactMap { $0[idFieldName]?.stringValue })
    }
}
