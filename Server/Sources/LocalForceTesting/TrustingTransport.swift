import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
public import SalesforceREST

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// An `HTTPTransport` over SwiftNIO that trusts the certificate authorities it is given, and
/// only those: how a ``TestOrg``'s client reaches an org served over HTTPS by a self-signed
/// authority, and how `msync --ca-file` reaches one (`URLSession` cannot be told another
/// authority on Linux). One connection a request, HTTP/1.1, TLS 1.2 or later, the host name
/// checked against the certificate; `http://` URLs go out without TLS.
public struct TrustingTransport: HTTPTransport {
    private let context: NIOSSLContext

    /// A transport trusting the authorities in `authorityPEM` only (one certificate or more, PEM).
    ///
    /// - Throws: `NIOSSLError.failedToLoadCertificate` (or NIOSSL's parse error) when
    ///   `authorityPEM` holds no certificate.
    public init(authorityPEM: String) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        let authorities = try NIOSSLCertificate.fromPEMBytes(Array(authorityPEM.utf8))
        guard !authorities.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
        configuration.trustRoots = .certificates(authorities)
        configuration.minimumTLSVersion = .tlsv12
        context = try NIOSSLContext(configuration: configuration)
    }

    /// Sends `request` on a connection of its own and returns its status, headers (names in
    /// lower case) and body.
    /// A TLS failure is a `RestError.network` that says what failed (an authority this
    /// transport does not trust: `CERTIFICATE_VERIFY_FAILED`; a certificate for another name).
    public func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        do {
            return try await exchange(request)
        } catch let error as NIOSSLError {
            let detail = String(describing: error)
            let reason =
                detail.contains("CERTIFICATE_VERIFY_FAILED")
                ? "the server's certificate is not signed by a trusted certificate authority" : "the TLS handshake failed"
            throw RestError.network("\(reason) (\(request.url?.host ?? "")): \(detail)")
        } catch let error as NIOSSLExtraError {
            // A certificate for another name, for one.
            throw RestError.network("the server's certificate was refused (\(request.url?.host ?? "")): \(error)")
        }
    }

    private func exchange(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        guard let url = request.url, let host = url.host, url.scheme == "https" || url.scheme == "http",
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { throw RestError.invalidResponse("not an http(s) URL: \(request.url?.absoluteString ?? "none")") }
        let secure = url.scheme == "https"
        let port = url.port ?? (secure ? 443 : 80)
        let context = self.context
        // An address is checked against the certificate's IP names; SNI takes host names only.
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: host, port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                if secure {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                }
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
            }
        }
        let body = request.httpBody.map { [UInt8]($0) } ?? []
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), uri: target)
        let hostName = host.contains(":") ? "[\(host)]" : host
        head.headers.add(name: "Host", value: url.port.map { "\(hostName):\($0)" } ?? hostName)
        for (name, value) in request.allHTTPHeaderFields ?? [:] { head.headers.replaceOrAdd(name: name, value: value) }
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        // The request's timeout bounds the whole exchange (closing the channel ends it).
        let timeout = request.timeoutInterval.isFinite && request.timeoutInterval > 0 ? request.timeoutInterval : 60
        let watchdog = Task {
            try await Task.sleep(for: .milliseconds(Int64(min(timeout, 86_400) * 1000)))
            channel.channel.close(promise: nil)
        }
        defer { watchdog.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(.head(head))
            if !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            var status = 0
            var headers: [String: String] = [:]
            var bytes: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = Int(response.status.code)
                    for (name, value) in response.headers { headers[name.lowercased()] = value }
                case .body(let buffer): bytes += buffer.readableBytesView
                case .end: return (status, headers, bytes)
                }
            }
            throw RestError.invalidResponse("the connection closed before the response ended")
        }
    }
}
