import FastJSON
public import Foundation
import Locking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An async client for the Salesforce REST API (and LocalForce).
///
/// <!-- snippet: Snippets/SalesforceReference.swift#restClient -->
/// ```swift
/// let client = RestClient(instanceURL: URL(string: "http://127.0.0.1:8080")!, tokenProvider: StaticAccessToken("secret"))
/// let page = try await client.query("SELECT Id, Name FROM Account")
/// ```
///
/// Idempotent calls (GET, PATCH, DELETE, and POSTs marked so) are retried on network errors
/// and 5xx with backoff; a POST that creates is never repeated blindly. A 401 asks the token
/// provider for a fresh token once (an ``OAuthSession`` shares one refresh among all the
/// requests in flight), then the request is sent again; a refresh the server refuses, or a
/// second 401, throws ``RestError/sessionExpired(_:)`` (a refresh that got no answer is a
/// network error, retried as any other).
public final class RestClient: Sendable {
    /// The org's instance (`https://yourorg.my.salesforce.com`, or a LocalForce URL); paths are resolved against it.
    public let instanceURL: URL
    /// `66.0`.
    public let apiVersion: String
    /// Supplies the bearer token and refreshes it after a 401.
    public let tokenProvider: any AccessTokenProvider
    /// How transient failures are retried.
    public let retryPolicy: RetryPolicy
    let transport: any HTTPTransport
    private let counter = RequestCounter()
    let identity = ClientIdentity()

    /// A client of one instance.
    ///
    /// - Parameters:
    ///   - instanceURL: the org's instance (`https://<domain>.my.salesforce.com`, or a LocalForce address).
    ///   - apiVersion: the REST API version in every `/services/data/vNN.N` path.
    ///   - tokenProvider: gives the access token, and a new one when the server answers 401.
    ///   - retryPolicy: how transient failures of idempotent requests (network errors, 5xx,
    ///     `REQUEST_LIMIT_EXCEEDED`) are retried.
    ///   - transport: how requests go out; `URLSession` by default, an in-process transport in tests.
    public init(
        instanceURL: URL, apiVersion: String = "66.0", tokenProvider: any AccessTokenProvider,
        retryPolicy: RetryPolicy = RetryPolicy(), transport: any HTTPTransport = URLSessionTransport()
    ) {
        self.instanceURL = instanceURL
        self.apiVersion = apiVersion
        self.tokenProvider = tokenProvider
        self.retryPolicy = retryPolicy
        self.transport = transport
    }

    /// `/services/data/vNN.N` + `suffix`.
    public func path(_ suffix: String) -> String {
        "/services/data/v\(apiVersion)" + (suffix.hasPrefix("/") ? suffix : "/" + suffix)
    }

    /// Requests sent so far (retries included): for progress and benchmarks.
    public var requestCount: Int { counter.value }

    /// Sends a request and returns the response when its status is 2xx (or 300/304), else throws
    /// ``RestError/http(status:errors:body:)``. A cancelled task is not retried: it throws
    /// `CancellationError` or the error of the interrupted attempt.
    public func send(_ request: RestRequest) async throws -> RestResponse {
        var attempt = 1
        var token = request.sendsAccessToken ? try await tokenProvider.accessToken() : ""
        var refreshed = false
        while true {
            try Task.checkCancellation()
            do {
                let response = try await sendOnce(request, token: token)
                if response.status == 401 && request.sendsAccessToken {
                    // A 401 means the request was not processed: sending it again is safe,
                    // even a create. One refresh per request; a second 401 ends the session.
                    guard !refreshed else { throw RestError.sessionExpired("the server rejected the refreshed token too") }
                    token = try await tokenProvider.refreshedAccessToken(rejected: token)
                    refreshed = true
                    continue
                }
                if (200..<300).contains(response.status) || response.status == 300 || response.status == 304 { return response }
                throw RestError.from(response)
            } catch let error as RestError {
                guard request.isIdempotent, error.isTransient, attempt < retryPolicy.maximumAttempts, !Task.isCancelled else { throw error }
                attempt += 1
                try await Task.sleep(for: retryPolicy.delay(beforeAttempt: attempt))
            }
        }
    }

    private func sendOnce(_ request: RestRequest, token: String) async throws(RestError) -> RestResponse {
        let base = request.baseURL ?? instanceURL
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw RestError.invalidResponse("bad base URL \(base)")
        }
        let (path, embeddedQuery) = Self.split(request.path)
        let basePath = request.baseURL == nil ? "" : String(components.percentEncodedPath.reversed().drop { $0 == "/" }.reversed())
        components.percentEncodedPath = basePath + path
        var items = components.percentEncodedQueryItems?.map { ($0.name, $0.value ?? "") } ?? []
        items += embeddedQuery
        items += request.queryItems.map { (Self.formEncode($0.0), Self.formEncode($0.1)) } // the others are encoded already
        components.percentEncodedQuery = items.isEmpty ? nil : items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        guard let url = components.url else { throw RestError.invalidResponse("bad request path \(request.path)") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        if request.sendsAccessToken { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        if let timeout = request.timeout {
            let (seconds, attoseconds) = timeout.components
            urlRequest.timeoutInterval = max(1, Double(seconds) + Double(attoseconds) / 1e18)
        }
        counter.increment()
        do {
            let (status, headers, body) = try await transport.send(urlRequest)
            return RestResponse(status: status, headers: headers, body: body)
        } catch let error as RestError {
            throw error
        } catch {
            throw RestError.network(error.localizedDescription)
        }
    }

    /// `/path?a=b` → the path and its (already encoded) query items.
    private static func split(_ path: String) -> (String, [(String, String)]) {
        guard let mark = path.firstIndex(of: "?") else { return (path, []) }
        let query = path[path.index(after: mark)...].split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts.first ?? ""), parts.count > 1 ? String(parts[1]) : "")
        }
        return (String(path[..<mark]), query)
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Percent-encodes a query value (space as `%20`, `+` as `%2B`).
    static func formEncode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                result.append(Character(UnicodeScalar(byte)))
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    /// Percent-encodes a path segment.
    public static func encodeSegment(_ text: String) -> String { formEncode(text) }
}

/// A thread-safe counter of requests.
final class RequestCounter: Sendable {
    private let count = Locked(0)

    var value: Int { count.current }
    func increment() { count.withLock { $0 += 1 } }
}
