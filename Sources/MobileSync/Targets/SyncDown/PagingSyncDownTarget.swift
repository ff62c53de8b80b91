public import FastJSON
import Foundation
public import SalesforceREST

/// Sync down from a plain paging REST API (not Salesforce): pages requested by index and size,
/// records sorted ascending by a key field.
///
/// Each page is applied as it arrives: first the local records the page proves gone are
/// deleted (key ranges, see ``syncDown(_:context:)``), then the page's records are found by key with
/// one lookup and created or updated. A full sync therefore also removes ghosts, with memory
/// bounded by the page size.
///
/// Order assumed: integer keys numerically, string keys byte-wise by UTF-8 (SQLite's BINARY
/// collation, `memcmp`). An API that sorts strings otherwise (case-insensitively, by locale)
/// must use integer keys or its pages are reported as out of order.
///
/// <!-- snippet: Snippets/MobileSyncReference.swift#paging -->
/// ```swift
/// let target = try PagingSyncDownTarget(url: "https://api.example.com/users", keyField: "userId", keyType: .integer,
///                                       pageSize: 100, firstPageIndex: 1, recordsPath: "data")
/// try await manager.syncDown(target: target, soupName: "users", name: "users")
/// ```
///
/// In `usersyncs.json`: `{"type": "paging", "url": …, "keyField": …, "keyType": "integer"|"string",
/// "pageSize", "firstPageIndex", "pageIndexParameter", "pageSizeParameter", "recordsPath",
/// "totalSizePath", "headers": {…}, "sendsAccessToken", "maximumPasses"}`.
public struct PagingSyncDownTarget: SyncDownTarget {
    /// How keys compare.
    public enum KeyType: String, Sendable { case integer, string }

    /// The resource: a path on the client's instance (`/api/Account`) or an absolute URL. It may
    /// hold `{pageIndex}` and `{pageSize}`; otherwise both are added as query parameters.
    public var url: String
    /// The top-level field the API sorts by, unique per record: records are matched by it.
    public var keyField: String
    /// How keys compare: numerically or byte-wise.
    public var keyType: KeyType
    /// Records per page requested (1…10,000); a shorter page is the last.
    public var pageSize: Int
    /// The index of the first page (0 or 1 in most APIs).
    public var firstPageIndex: Int
    /// The query parameter carrying the page index (`pageIndex`).
    public var pageIndexParameter: String
    /// The query parameter carrying the page size (`pageSize`).
    public var pageSizeParameter: String
    /// Dotted path to the records array in a response; nil when the response is the array.
    public var recordsPath: String?
    /// Dotted path to the total number of records, when the API reports it (for progress).
    public var totalSizePath: String?
    /// Sent with every request (API keys, custom authorization).
    public var headers: [String: String]
    /// Whether the client's bearer token is sent. Defaults to true for instance paths and false
    /// for absolute URLs, so the token never leaks to another server unless asked.
    public var sendsAccessToken: Bool
    /// Full passes allowed when pages shift under the sync (see ``syncDown(_:context:)``); the sync fails
    /// after that many passes that each saw the server change.
    public var maximumPasses: Int

    /// A paging target.
    ///
    /// - Throws: ``SyncError/invalidTarget(_:)`` for a URL that is neither an instance path nor http(s), a dotted or empty key field, or a number out of its range.
    public init(
        url: String, keyField: String, keyType: KeyType, pageSize: Int = 100, firstPageIndex: Int = 0,
        pageIndexParameter: String = "pageIndex", pageSizeParameter: String = "pageSize", recordsPath: String? = nil,
        totalSizePath: String? = nil, headers: [String: String] = [:], sendsAccessToken: Bool? = nil, maximumPasses: Int = 3
    ) throws {
        guard !url.isEmpty, url.hasPrefix("/") || URL(string: url)?.scheme?.hasPrefix("http") == true else {
            throw SyncError.invalidTarget("paging target: url must be an instance path (/…) or an http(s) URL, not '\(url)'")
        }
        guard !keyField.isEmpty, !keyField.contains(".") else {
            throw SyncError.invalidTarget("paging target: keyField must be a top-level field name")
        }
        guard (1...10_000).contains(pageSize) else { throw SyncError.invalidTarget("paging target: pageSize must be in 1...10000") }
        guard (0...1_000_000).contains(firstPageIndex), (1...20).contains(maximumPasses) else {
            throw SyncError.invalidTarget("paging target: firstPageIndex must be in 0...1000000 and maximumPasses in 1...20")
        }
        self.url = url
        self.keyField = keyField
        self.keyType = keyType
        self.pageSize = pageSize
        self.firstPageIndex = firstPageIndex
        self.pageIndexParameter = pageIndexParameter
        self.pageSizeParameter = pageSizeParameter
        self.recordsPath = recordsPath.flatMap { $0.isEmpty ? nil : $0 }
        self.totalSizePath = totalSizePath.flatMap { $0.isEmpty ? nil : $0 }
        self.headers = headers
        self.sendsAccessToken = sendsAccessToken ?? url.hasPrefix("/")
        self.maximumPasses = maximumPasses
    }

    init(json: JSONValue) throws {
        guard let url = json["url"]?.stringValue, let keyField = json["keyField"]?.stringValue else {
            throw SyncError.invalidConfig("paging target needs url and keyField")
        }
        let keyTypeName = json["keyType"]?.stringValue ?? "string"
        guard let keyType = KeyType(rawValue: keyTypeName) else {
            throw SyncError.invalidConfig("paging target: keyType must be integer or string, not \(keyTypeName)")
        }
        var headers: [String: String] = [:]
        for (name, value) in json["headers"]?.objectValue ?? [:] {
            guard let text = value.stringValue else { throw SyncError.invalidConfig("paging target: header \(name) must be a string") }
            headers[name] = text
        }
        try self.init(
            url: url, keyField: keyField, keyType: keyType, pageSize: json["pageSize"]?.int64Value.map { Int(clamping: $0) } ?? 100,
            firstPageIndex: json["firstPageIndex"]?.int64Value.map { Int(clamping: $0) } ?? 0,
            pageIndexParameter: json["pageIndexParameter"]?.stringValue ?? "pageIndex",
            pageSizeParameter: json["pageSizeParameter"]?.stringValue ?? "pageSize",
            recordsPath: json["recordsPath"]?.stringValue, totalSizePath: json["totalSizePath"]?.stringValue, headers: headers,
            sendsAccessToken: json["sendsAccessToken"]?.boolValue,
            maximumPasses: json["maximumPasses"]?.int64Value.map { Int(clamping: $0) } ?? 3)
    }

    /// The target as JSON, `"type": "paging"` with every setting (see the type's documentation for the keys).
    public var json: JSONValue {
        var json: [String: JSONValue] = [
            "type": "paging", "url": .string(url), "keyField": .string(keyField), "keyType": .string(keyType.rawValue),
            "pageSize": .int(Int64(pageSize)), "firstPageIndex": .int(Int64(firstPageIndex)),
            "pageIndexParameter": .string(pageIndexParameter),
            "pageSizeParameter": .string(pageSizeParameter), "sendsAccessToken": .bool(sendsAccessToken),
            "maximumPasses": .int(Int64(maximumPasses)),
        ]
        if let recordsPath { json["recordsPath"] = .string(recordsPath) }
        if let totalSizePath { json["totalSizePath"] = .string(totalSizePath) }
        if !headers.isEmpty { json["headers"] = .object(headers.mapValues(JSONValue.string)) }
        return .object(json)
    }

    /// The key field, which identifies records locally.
    public var idFieldName: String { keyField }
    /// Empty: a paging API has no modification date, so every sync is a full pass.
    public var modificationDateFieldName: String { "" }

    /// One page of a paging API.
    public struct Page: Sendable {
        /// The records in the order received, with their keys.
        public var records: [(key: PagingKey, record: JSONValue)]
        /// The total the API reported, if any.
        public var totalSize: Int?
        /// The response as received.
        public var body: [UInt8]
    }

    /// Fetches page `index` (counted from ``firstPageIndex``).
    ///
    /// - Throws: ``SyncError/invalidTarget(_:)`` for a response without the records array, a
    ///   record without a key of the configured type, or keys not strictly ascending.
    public func page(_ index: Int, client: RestClient) async throws -> Page {
        let body = try await client.send(request(index)).body
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            throw SyncError.invalidTarget("paging target: page \(index) of \(url) is not JSON: \(error)")
        }
        guard let records = (recordsPath.map { json.value(atPath: $0) } ?? json)?.arrayValue else {
            throw SyncError.invalidTarget("paging target: page \(index) of \(url) has no records array at '\(recordsPath ?? "")'")
        }
        var keyed: [(key: PagingKey, record: JSONValue)] = []
        keyed.reserveCapacity(records.count)
        for record in records {
            guard let key = PagingKey(record[keyField], type: keyType) else {
                throw SyncError.invalidTarget("paging target: a record of page \(index) has no \(keyType.rawValue) \(keyField)")
            }
            if let previous = keyed.last?.key, !(previous < key) {
                throw SyncError.invalidTarget("paging target: page \(index) is not sorted by \(keyField) (\(previous) then \(key))")
            }
            keyed.append((key, record))
        }
        let total = totalSizePath.flatMap { json.value(atPath: $0)?.int64Value }.map { Int(clamping: $0) }
        return Page(records: keyed, totalSize: total, body: body)
    }

    private func request(_ index: Int) throws -> RestRequest {
        var text = url
        var items: [(String, String)] = []
        if text.contains("{pageIndex}") || text.contains("{pageSize}") {
            text = text.replacingOccurrences(of: "{pageIndex}", with: String(index)).replacingOccurrences(
                of: "{pageSize}", with: String(pageSize))
        } else {
            items = [(pageIndexParameter, String(index)), (pageSizeParameter, String(pageSize))]
        }
        if text.hasPrefix("/") {
            return RestRequest(method: .get, path: text, queryItems: items, headers: headers, sendsAccessToken: sendsAccessToken)
        }
        guard let base = URL(string: text) else { throw SyncError.invalidTarget("paging target: bad url \(text)") }
        return RestRequest(method: .get, path: "", queryItems: items, headers: headers, baseURL: base, sendsAccessToken: sendsAccessToken)
    }
}

/// A paging API's record key: integers compare numerically, strings byte-wise by UTF-8.
public enum PagingKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    case integer(Int64)
    case string(String)

    /// The key of a JSON value, when it has the expected type.
    public init?(_ value: JSONValue?, type: PagingSyncDownTarget.KeyType) {
        switch (type, value) {
        case (.integer, .int(let int)?): self = .integer(int)
        case (.integer, .double(let double)?) where double == double.rounded() && abs(double) < 9e15: self = .integer(Int64(double))
        case (.string, .string(let text)?): self = .string(text)
        default: return nil
        }
    }

    /// The key as JSON: a number or a string.
    public var json: JSONValue {
        switch self {
        case .integer(let int): .int(int)
        case .string(let text): .string(text)
        }
    }

    /// The key as text: an integer, or a quoted string.
    public var description: String {
        switch self {
        case .integer(let int): String(int)
        case .string(let text): "\"\(text)\""
        }
    }

    /// Integers numerically, strings byte-wise by UTF-8; an integer orders before any string.
    public static func < (lhs: PagingKey, rhs: PagingKey) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): a < b
        case (.string(let a), .string(let b)): a.utf8.lexicographicallyPrecedes(b.utf8)
        case (.integer, .string): true
        case (.string, .integer): false
        }
    }
}
