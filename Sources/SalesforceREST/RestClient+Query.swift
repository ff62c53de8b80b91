public import FastJSON

extension RestClient {
    /// Runs SOQL and returns the first page. `batchSize` (200…2000) is sent as
    /// `Sforce-Query-Options` when it is not the default 2000.
    public func query(_ soql: String, batchSize: Int? = nil, includeDeleted: Bool = false) async throws -> QueryPage {
        var headers: [String: String] = [:]
        if let batchSize, batchSize != 2000 { headers["Sforce-Query-Options"] = "batchSize=\(min(2000, max(200, batchSize)))" }
        let request = RestRequest(
            method: .get, path: path(includeDeleted ? "queryAll" : "query"), queryItems: [("q", soql)], headers: headers)
        return try QueryPage(body: try await send(request).body)
    }

    /// The page at a `nextRecordsUrl`.
    public func queryMore(_ nextRecordsURL: String) async throws -> QueryPage {
        try QueryPage(body: try await send(RestRequest(method: .get, path: nextRecordsURL)).body)
    }

    /// Every record of a query, each page's `nextRecordsUrl` followed. All are kept in memory:
    /// for results known to be small (a slice of ids, one tree, a test's check).
    public func allRecords(_ soql: String, batchSize: Int? = nil) async throws -> [JSONValue] {
        try await records(from: query(soql, batchSize: batchSize))
    }

    /// The records of `page` and of every page after it.
    public func records(from page: QueryPage) async throws -> [JSONValue] {
        var page = page
        var records = try page.records()
        while !page.done, let next = page.nextRecordsURL {
            page = try await queryMore(next)
            records += try page.records()
        }
        return records
    }

    /// Runs SOSL; returns the raw `{"searchRecords":[…]}` body.
    public func search(_ sosl: String) async throws -> [UInt8] {
        try await send(RestRequest(method: .get, path: path("search"), queryItems: [("q", sosl)])).body
    }

    /// Ids of the object's most recently used records (`recentItems` of `/sobjects/{T}`).
    public func recentItemIds(_ objectType: String) async throws -> [String] {
        let info = try await send(RestRequest(method: .get, path: path("sobjects/\(RestClient.encodeSegment(objectType))"))).json()
        return info["recentItems"]?.arrayValue?.compactMap { $0["Id"]?.stringValue } ?? []
    }

    /// `describe` of an object.
    public func describe(_ objectType: String) async throws -> JSONValue {
        try await send(RestRequest(method: .get, path: path("sobjects/\(RestClient.encodeSegment(objectType))/describe"))).json()
    }

    /// A UI API layout of an object.
    public func layout(_ objectType: String, formFactor: String?, layoutType: String?, mode: String?, recordTypeId: String?) async throws
        -> JSONValue
    {
        var items: [(String, String)] = []
        if let formFactor { items.append(("formFactor", formFactor)) }
        if let layoutType { items.append(("layoutType", layoutType)) }
        if let mode { items.append(("mode", mode)) }
        if let recordTypeId { items.append(("recordTypeId", recordTypeId)) }
        return try await send(
            RestRequest(method: .get, path: path("ui-api/layout/\(RestClient.encodeSegment(objectType))"), queryItems: items)
        ).json()
    }

    /// One page of briefcase priming records.
    public func primingRecords(relayToken: String? = nil, changedAfterTimestamp: String? = nil) async throws -> JSONValue {
        var items: [(String, String)] = []
        if let relayToken { items.append(("relayToken", relayToken)) }
        if let changedAfterTimestamp { items.append(("changedAfterTimestamp", changedAfterTimestamp)) }
        return try await send(RestRequest(method: .get, path: path("connect/briefcase/priming-records"), queryItems: items)).json()
    }
}
