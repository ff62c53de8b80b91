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

    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    public func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw RestError.invalidResponse("not an HTTP response") }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return (http.statusCode, headers, Array(data))
    }
}
