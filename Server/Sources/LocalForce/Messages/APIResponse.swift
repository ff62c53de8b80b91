import FastJSON
import SalesforceWire

/// An HTTP response produced by the API layer.
public struct APIResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The headers to send.
    public var headers: [String: String]
    /// The body (JSON for every API answer but the Bulk APIs' CSV).
    public var body: [UInt8]
    /// A body sent as it is produced instead of ``body`` (Bulk results); nil for most answers.
    public var bodyStream: BodyStream?

    /// A response; see the properties.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = [], bodyStream: BodyStream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
    }

    package static let contentType = "application/json;charset=UTF-8"

    /// A JSON answer built as a value, its objects' members sorted by key: the same bytes for the
    /// same answer in every process. (Query answers, written by the query engine in field order,
    /// are ``json(bytes:status:)``.)
    static func json(_ value: JSONValue, status: Int = 200, headers: [String: String] = [:]) -> APIResponse {
        APIResponse(
            status: status, headers: headers.merging(["Content-Type": contentType]) { first, _ in first }, body: value.sortedJSONBytes)
    }

    static func json(bytes: [UInt8], status: Int = 200) -> APIResponse {
        APIResponse(status: status, headers: ["Content-Type": contentType], body: bytes)
    }

    static func noContent() -> APIResponse { APIResponse(status: 204) }

    /// The error as Salesforce writes it on a resource: a one-element array.
    package static func error(_ error: APIError) -> APIResponse {
        json(.array([error.resourceJSON]), status: error.status)
    }
}

extension APIError {
    /// The error as a Salesforce error item.
    var item: SalesforceErrorItem { SalesforceErrorItem(code: errorCode, message: message, fields: fields ?? []) }

    /// `{"errorCode","message"[,"fields"]}` — the resource-level shape; `fields` is left out
    /// when the error names none at all, as Salesforce does for `NOT_FOUND`.
    var resourceJSON: JSONValue {
        guard fields == nil, case .object(var object) = item.json else { return item.json }
        object["fields"] = nil
        return .object(object)
    }

    /// `{"statusCode","message","fields"}` — the save-result shape.
    var saveResultJSON: JSONValue { item.saveResultJSON }
}
