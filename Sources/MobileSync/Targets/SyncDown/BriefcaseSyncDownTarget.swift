public import FastJSON
public import SalesforceREST
import SalesforceWire

/// One object type of a briefcase sync: where its records go and which fields to fetch.
public struct BriefcaseObjectInfo: Sendable, Equatable {
    /// The sObject type (`sobjectType` in `usersyncs.json`), as the briefcase groups its ids.
    public var objectType: String
    /// The soup the records of this type are written to.
    public var soupName: String
    /// The fields retrieved, besides the id and modification date (always added).
    public var fieldlist: [String]
    /// The field holding the record's id (`Id`).
    public var idFieldName: String
    /// The field holding the record's last modification date (`LastModifiedDate`), which drives resyncs.
    public var modificationDateFieldName: String

    /// One object type; see the properties.
    public init(
        objectType: String, soupName: String, fieldlist: [String], idFieldName: String = "Id",
        modificationDateFieldName: String = "LastModifiedDate"
    ) {
        self.objectType = objectType
        self.soupName = soupName
        self.fieldlist = fieldlist
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    /// The fields retrieved: the list plus the id and modification date.
    var fields: [String] {
        var fields = fieldlist
        for required in [modificationDateFieldName, idFieldName] where !fields.contains(required) { fields.insert(required, at: 0) }
        return fields
    }
}

/// Syncs down the records of the user's briefcase (`GET /connect/briefcase/priming-records`,
/// followed by its relay tokens), several object types into several soups: the ids of each
/// type are fetched with sObject Collections retrieves of `countIdsPerRetrieve` ids. A resync
/// asks only for records changed after the sync's `maxTimeStamp` (`changedAfterTimestamp`);
/// ghost cleanup compares each soup with the briefcase's ids of its type.
public struct BriefcaseSyncDownTarget: SyncDownTarget {
    /// The object types of the briefcase to sync, each into its soup; types not listed are ignored.
    public var infos: [BriefcaseObjectInfo]
    /// Every object's soup: runs writing any of them wait for this one.
    public var additionalSoupNames: [String] { infos.map(\.soupName) }
    /// Ids per collections retrieve (1…2000).
    public var countIdsPerRetrieve: Int

    /// A briefcase target.
    ///
    /// - Throws: ``SyncError/invalidTarget(_:)`` without infos, or with `countIdsPerRetrieve` outside 1…2000.
    public init(infos: [BriefcaseObjectInfo], countIdsPerRetrieve: Int = 500) throws {
        guard !infos.isEmpty else { throw SyncError.invalidTarget("briefcase target needs at least one info") }
        guard (1...2000).contains(countIdsPerRetrieve) else {
            throw SyncError.invalidTarget("briefcase target: countIdsPerRetrieve must be in 1...2000")
        }
        self.infos = infos
        self.countIdsPerRetrieve = countIdsPerRetrieve
    }

    init(json: JSONValue) throws {
        guard let list = json["infos"]?.arrayValue, !list.isEmpty else { throw SyncError.invalidConfig("briefcase target needs \"infos\"") }
        let infos = try list.map { info -> BriefcaseObjectInfo in
            guard let type = info["sobjectType"]?.stringValue, let soup = info["soupName"]?.stringValue,
                let fields = info["fieldlist"]?.arrayValue?.compactMap(\.stringValue)
            else {
                throw SyncError.invalidConfig("briefcase info needs \"sobjectType\", \"soupName\" and \"fieldlist\"")
            }
            return BriefcaseObjectInfo(
                objectType: type, soupName: soup, fieldlist: fields, idFieldName: info["idFieldName"]?.stringValue ?? "Id",
                modificationDateFieldName: info["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate")
        }
        try self.init(infos: infos, countIdsPerRetrieve: json["countIdsPerRetrieve"]?.int64Value.map { Int(clamping: $0) } ?? 500)
    }

    /// The target as JSON: `{"type": "briefcase", "infos": […], "countIdsPerRetrieve": N}`, the SDK's keys.
    public var json: JSONValue {
        let infos: [JSONValue] = self.infos.map { info in
            [
                "sobjectType": .string(info.objectType), "soupName": .string(info.soupName),
                "fieldlist": .array(info.fieldlist.map(JSONValue.string)),
                "idFieldName": .string(info.idFieldName), "modificationDateFieldName": .string(info.modificationDateFieldName),
            ]
        }
        return [
            "type": "briefcase", "infos": .array(infos), "countIdsPerRetrieve": .int(Int64(countIdsPerRetrieve)),
            "idFieldName": "Id", "modificationDateFieldName": "LastModifiedDate",
        ]
    }

    /// `Id`: briefcase records are matched by their Salesforce id in every soup.
    public var idFieldName: String { "Id" }
    /// `LastModifiedDate`, the date `changedAfterTimestamp` compares on a resync.
    public var modificationDateFieldName: String { "LastModifiedDate" }

    /// One page of priming records: ids by object type, the relay token for the next page, and
    /// the total the server reports for the whole briefcase.
    public struct PrimingPage: Sendable {
        /// The record ids of the page, by sObject type (record types merged).
        public var idsByType: [String: [String]]
        /// The token that asks for the next page; nil on the last one.
        public var relayToken: String?
        /// The total number of records of the briefcase, when the server reports it (`stats.recordCountTotal`).
        public var totalCount: Int?
    }

    /// A page of priming records (the first one when `relayToken` is nil).
    public func primingPage(client: RestClient, relayToken: String?, changedAfter: Int64?) async throws -> PrimingPage {
        let json = try await client.primingRecords(
            relayToken: relayToken,
            changedAfterTimestamp: relayToken == nil ? changedAfter.map { SalesforceTime.format($0, zulu: true) } : nil)
        var ids: [String: [String]] = [:]
        for (type, byRecordType) in json["primingRecords"]?.objectValue ?? [:] {
            for records in (byRecordType.objectValue ?? [:]).values {
                ids[type, default: []] += records.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            }
        }
        return PrimingPage(
            idsByType: ids, relayToken: json["relayToken"]?.stringValue,
            totalCount: json["stats"]?["recordCountTotal"]?.int64Value.map { Int(clamping: $0) })
    }

    /// The records of `ids` for `info`, retrieved in slices (records deleted meanwhile are skipped).
    public func records(_ ids: [String], of info: BriefcaseObjectInfo, client: RestClient) async throws -> [JSONValue] {
        var records: [JSONValue] = []
        for start in stride(from: 0, to: ids.count, by: countIdsPerRetrieve) {
            let slice = Array(ids[start..<min(ids.count, start + countIdsPerRetrieve)])
            records += try await client.retrieveRecords(info.objectType, ids: slice, fields: info.fields).compactMap { $0 }
        }
        return records
    }

    /// Every id of the briefcase by type (all relay pages).
    func allIds(client: RestClient) async throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var token: String?
        repeat {
            let page = try await primingPage(client: client, relayToken: token, changedAfter: nil)
            for (type, ids) in page.idsByType { result[type, default: []].formUnion(ids) }
            token = page.relayToken
        } while token != nil
        return result
    }
}
