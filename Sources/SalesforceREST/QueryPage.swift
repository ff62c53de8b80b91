public import FastJSON
public import SalesforceWire

/// One page of a query: the raw body (records stay undecoded) and its envelope.
public struct QueryPage: Sendable {
    /// The response body as received: `{"totalSize","done","nextRecordsUrl","records":[…]}`.
    public let body: [UInt8]
    /// Records the whole query returns (all pages).
    public let totalSize: Int
    /// Whether this is the last page.
    public let done: Bool
    /// Relative URL of the next page, when not done.
    public let nextRecordsURL: String?

    /// Reads the envelope without decoding the records.
    public init(body: [UInt8]) throws {
        let envelope: [String: JSONValue]
        do {
            envelope = try JSONTopLevelScanner.members(["totalSize", "done", "nextRecordsUrl"], in: body)
        } catch {
            throw RestError.invalidResponse("query response is not a JSON object: \(error)")
        }
        guard let totalSize = envelope["totalSize"]?.int64Value else { throw RestError.invalidResponse("query response has no totalSize") }
        self.body = body
        self.totalSize = Int(totalSize)
        self.done = envelope["done"]?.boolValue ?? true
        self.nextRecordsURL = envelope["nextRecordsUrl"]?.stringValue
    }

    /// The records, decoded.
    public func records() throws -> [JSONValue] {
        try JSONValue(parsing: body)["records"]?.arrayValue ?? []
    }
}

/// A create/update/upsert/delete outcome, per record.
public struct SaveResult: Sendable, Hashable {
    /// The record's id, when the server has one for it (nil for failures of records it never saw).
    public var id: String?
    /// Whether the operation succeeded.
    public var success: Bool
    /// For upserts: whether the record was created.
    public var created: Bool?
    /// Salesforce's errors when it failed.
    public var errors: [SalesforceErrorItem]

    /// A result; see the properties.
    public init(id: String?, success: Bool, created: Bool? = nil, errors: [SalesforceErrorItem] = []) {
        self.id = id
        self.success = success
        self.created = created
        self.errors = errors
    }

    init(_ json: JSONValue) {
        id = json["id"]?.stringValue
        success = json["success"]?.boolValue ?? false
        created = json["created"]?.boolValue
        errors = (json["errors"]?.arrayValue ?? []).compactMap(SalesforceErrorItem.init)
    }
}
