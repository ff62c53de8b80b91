public import LocalForce
public import SalesforceREST
import SalesforceWire

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A transport that hands each request to a `LocalForce` in the same process: no socket, no
/// port, the same answers (headers, `Date` from the org's clock, fault injection) as over HTTP.
///
/// <!-- snippet: Server/Tests/DocumentationTests/SymbolReference.swift#inProcess -->
/// ```swift
/// let org = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "t")
/// let client = RestClient(
///     instanceURL: URL(string: "http://localforce.invalid")!,
///     tokenProvider: StaticAccessToken("t"), transport: InProcessTransport(org))
/// ```
///
/// A fault that drops the connection reaches the client as `RestError/network(_:)`, as a lost
/// connection does.
public struct InProcessTransport: HTTPTransport {
    /// The org requests go to.
    public let localForce: LocalForce

    /// A transport to `localForce`.
    public init(_ localForce: LocalForce) {
        self.localForce = localForce
    }

    /// Answers `request` from the org; header names in the answer are lower-case.
    public func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw RestError.network("the request has no URL")
        }
        let apiRequest = APIRequest(
            method: request.httpMethod ?? "GET", path: components.percentEncodedPath, query: components.percentEncodedQuery,
            headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody.map { Array($0) } ?? [])
        switch await localForce.injectingFaults(apiRequest, handle: { await localForce.handle(apiRequest) }) {
        case .handled(let response), .injected(let response):
            var headers: [String: String] = [:]
            for (name, value) in response.headers { headers[name.lowercased()] = value }
            headers["date"] = HTTPDate.format(localForce.currentTime())
            // A streamed body (Bulk results) is collected: a transport answers whole.
            return (response.status, headers, try await response.bodyStream?.collect() ?? response.body)
        case .dropped:
            throw RestError.network("the connection was lost (fault injection)")
        }
    }
}
