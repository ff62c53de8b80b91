public import FastJSON
public import Foundation

/// One REST call: method, path under the instance (usually `/services/data/vNN.N/…`), query
/// parameters, headers and an optional JSON body.
public struct RestRequest: Sendable {
    /// The HTTP methods the REST API uses.
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    /// The HTTP method.
    public var method: Method
    /// Path from the instance root, starting with `/`.
    public var path: String
    /// Query parameters, in order, unencoded (the client percent-encodes them).
    public var queryItems: [(String, String)]
    /// Extra headers; the client adds `Authorization` (when ``sendsAccessToken``) and `Accept`.
    public var headers: [String: String]
    /// The body, or nil.
    public var body: [UInt8]?
    /// Whether repeating the call is harmless, so it may be retried after a network error or
    /// a 5xx. GET, DELETE and PATCH are; a POST that creates is not (it could create twice).
    public var isIdempotent: Bool
    /// Another server than the instance (a plain REST API): `path` is appended to its path.
    /// `nil` sends to the client's instance.
    public var baseURL: URL?
    /// Whether the client's bearer token goes along (turn it off for APIs that authenticate
    /// with their own headers; the token is then never sent to that server).
    public var sendsAccessToken: Bool
    /// How long the request may go without an answer; `nil` keeps the transport's own timeout
    /// (a long poll that the server holds for minutes sets a longer one).
    public var timeout: Duration?

    /// A request. `isIdempotent` defaults to true for every method but POST.
    public init(
        method: Method, path: String, queryItems: [(String, String)] = [], headers: [String: String] = [:],
        body: [UInt8]? = nil, isIdempotent: Bool? = nil, baseURL: URL? = nil, sendsAccessToken: Bool = true
    ) {
        self.method = method
        self.path = path
        self.baseURL = baseURL
        self.sendsAccessToken = sendsAccessToken
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.isIdempotent = isIdempotent ?? (method != .post)
    }

    /// A request with a JSON body.
    public init(method: Method, path: String, json: JSONValue, queryItems: [(String, String)] = [], isIdempotent: Bool? = nil) {
        self.init(
            method: method, path: path, queryItems: queryItems, headers: ["Content-Type": "application/json"],
            body: json.jsonBytes, isIdempotent: isIdempotent)
    }
}

/// A response: status, headers (lower-cased names) and the raw body.
public struct RestResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The headers, names lower-cased.
    public var headers: [String: String]
    /// The body as received.
    public var body: [UInt8]

    /// A response; see the properties.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body parsed as JSON (`null` for an empty body).
    public func json() throws -> JSONValue {
        if body.isEmpty { return .null }
        do {
            return try JSONValue(parsing: body)
        } catch {
            throw RestError.invalidResponse("Response body is not JSON: \(error)")
        }
    }
}
