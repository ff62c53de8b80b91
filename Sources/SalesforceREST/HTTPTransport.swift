#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Sends HTTP requests. `URLSessionTransport` is the default; tests or apps may supply another.
public protocol HTTPTransport: Sendable {
    func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8])
}

/// The transport over `URLSession` (FoundationNetworking on Linux).
public struct URLSessionTransport: HTTPTransport {
    let session: URLSession

    /// A transport over `session` (ephemeral by default: no cookies or cache kept).
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    /// The request runs in a task of its own that is never cancelled: cancelling
    /// `URLSession.data(for:)` while its response completes can deadlock FoundationNetworking
    /// (the cancellation handler waits on the session's queue under the task's status lock,
    /// while that queue resumes the task), which hangs every thread of a 2-core pool. A
    /// cancelled caller waits for the response instead (the session's timeout bounds it) and
    /// gets it: a sync up must learn what the server did.
    public func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        let session = self.session
        let (data, response) = try await Task { try await session.data(for: request) }.value
        guard let http = response as? HTTPURLResponse else { throw RestError.invalidResponse("not an HTTP response") }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return (http.statusCode, headers, Array(data))
    }
}
