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

    /// On Apple platforms cancelling the caller cancels the request, so that an app stopping its
    /// syncs before iOS suspends it is not held by a slow response (a sync up whose response is
    /// lost reconciles it on its next run). With FoundationNetworking (Linux) the request runs
    /// in a task of its own that is never cancelled: cancelling `URLSession.data(for:)` while its
    /// response completes can deadlock it (the cancellation handler waits on the session's queue
    /// under the task's status lock, while that queue resumes the task), which hangs every
    /// thread of a 2-core pool; a cancelled caller waits for the response instead (the
    /// session's timeout bounds it).
    public func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        let session = self.session
        #if canImport(FoundationNetworking)
            let (data, response) = try await Task { try await session.data(for: request) }.value
        #else
            let (data, response) = try await session.data(for: request)
        #endif
        guard let http = response as? HTTPURLResponse else { throw RestError.invalidResponse("not an HTTP response") }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return (http.statusCode, headers, Array(data))
    }
}
