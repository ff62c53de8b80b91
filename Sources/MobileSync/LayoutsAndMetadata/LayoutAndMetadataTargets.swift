public import FastJSON
public import SalesforceREST

/// Syncs down one UI API layout (`GET /ui-api/layout/{type}`) as one soup entry whose `Id` is
/// `{type}-{formFactor}-{layoutType}-{mode}-{recordTypeId}` (absent parts read `null`, as the
/// SDK's Android target writes them). A resync fetches it again; ghost cleanup removes nothing.
public struct LayoutSyncDownTarget: FetchingSyncDownTarget {
    /// The sObject type whose layout is fetched.
    public let objectType: String
    /// `Large`, `Medium` or `Small`; nil: the server's default.
    public let formFactor: String?
    /// `Full` or `Compact`; nil: the server's default.
    public let layoutType: String?
    /// `Create`, `Edit` or `View`; nil: the server's default.
    public let mode: String?
    /// The record type; nil: the default one.
    public let recordTypeId: String?

    /// A layout target.
    public init(objectType: String, formFactor: String? = nil, layoutType: String? = nil, mode: String? = nil, recordTypeId: String? = nil)
    {
        self.objectType = objectType
        self.formFactor = formFactor
        self.layoutType = layoutType
        self.mode = mode
        self.recordTypeId = recordTypeId
    }

    init(json: JSONValue) throws {
        guard let type = json["sobjectType"]?.stringValue, !type.isEmpty else {
            throw SyncError.invalidConfig("layout target needs \"sobjectType\"")
        }
        self.init(
            objectType: type, formFactor: json["formFactor"]?.stringValue, layoutType: json["layoutType"]?.stringValue,
            mode: json["mode"]?.stringValue, recordTypeId: json["recordTypeId"]?.stringValue)
    }

    /// `{"type": "layout", "sobjectType": …}` with the parts that are set.
    public var json: JSONValue {
        var json: [String: JSONValue] = [
            "type": "layout", "sobjectType": .string(objectType), "idFieldName": "Id",
            "modificationDateFieldName": "LastModifiedDate",
        ]
        for (key, value) in [("formFactor", formFactor), ("layoutType", layoutType), ("mode", mode), ("recordTypeId", recordTypeId)] {
            if let value { json[key] = .string(value) }
        }
        return .object(json)
    }

    /// `Id`: the synthetic id of the entry.
    public var idFieldName: String { "Id" }
    /// `LastModifiedDate` (layouts carry none; every sync fetches the layout again).
    public var modificationDateFieldName: String { "LastModifiedDate" }

    /// The entry's `Id`.
    public var entryId: String {
        ([objectType] + [formFactor, layoutType, mode, recordTypeId].map { $0 ?? "null" }).joined(separator: "-")
    }

    /// The layout as one record, its `Id` set to ``entryId``.
    public func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage {
        var layout = try await client.layout(
            objectType, formFactor: formFactor, layoutType: layoutType, mode: mode, recordTypeId: recordTypeId)
        guard layout.objectValue != nil else { throw SyncError.invalidTarget("layout of \(objectType) is not a JSON object") }
        layout["Id"] = .string(entryId)
        return SyncDownPage(body: JSONValue.array([layout]).jsonBytes, recordsPath: "", totalSize: 1, next: nil)
    }

    /// Every id asked about: ghost cleanup removes nothing (the SDK's no-op).
    public func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> { Set(localIds) }

    /// Ghost cleanup removes nothing, without reading the soup.
    public func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int { 0 }
}

/// Syncs down one object's describe (`GET /sobjects/{type}/describe`) as one soup entry whose
/// `Id` is the object's name. A resync fetches it again; ghost cleanup removes nothing.
public struct MetadataSyncDownTarget: FetchingSyncDownTarget {
    /// The sObject type whose describe is fetched.
    public let objectType: String

    /// A metadata target.
    public init(objectType: String) {
        self.objectType = objectType
    }

    init(json: JSONValue) throws {
        guard let type = json["sobjectType"]?.stringValue, !type.isEmpty else {
            throw SyncError.invalidConfig("metadata target needs \"sobjectType\"")
        }
        self.init(objectType: type)
    }

    /// `{"type": "metadata", "sobjectType": …}`.
    public var json: JSONValue {
        ["type": "metadata", "sobjectType": .string(objectType), "idFieldName": "Id", "modificationDateFieldName": "LastModifiedDate"]
    }

    /// `Id`: the object's name.
    public var idFieldName: String { "Id" }
    /// `LastModifiedDate` (describes carry none; every sync fetches it again).
    public var modificationDateFieldName: String { "LastModifiedDate" }

    /// The describe as one record, its `Id` set to the object's name.
    public func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage {
        var describe = try await client.describe(objectType)
        guard describe.objectValue != nil else { throw SyncError.invalidTarget("describe of \(objectType) is not a JSON object") }
        describe["Id"] = .string(objectType)
        return SyncDownPage(body: JSONValue.array([describe]).jsonBytes, recordsPath: "", totalSize: 1, next: nil)
    }

    /// Every id asked about: ghost cleanup removes nothing (the SDK's no-op).
    public func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> { Set(localIds) }

    /// Ghost cleanup removes nothing, without reading the soup.
    public func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int { 0 }
}
