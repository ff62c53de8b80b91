import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SalesforceREST

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// An ``HTTPTransport`` over SwiftNIO that trusts one certificate authority: how a
/// ``TestOrg``'s client reaches an org served over HTTPS by a self-signed authority
/// (`URLSession` trusts only the system's authorities on Linux). One connection a request,
/// HTTP/1.1, TLS 1.2 or later, the host name checked against the certificate.
struct TrustingTransport: HTTPTransport {
    private let context: NIOSSLContext

    /// A transport trusting the authority in `authorityPEM` only.
    init(authorityPEM: String) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(authorityPEM.utf8)))
        configuration.minimumTLSVersion = .tlsv12
        context = try NIOSSLContext(configuration: configuration)
    }

    func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        guard let url = request.url, let host = url.host, url.scheme == "https",
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { throw RestError.invalidResponse("not an https URL: \(request.url?.absoluteString ?? "none")") }
        let port = url.port ?? 443
        let context = self.context
        // An address is checked against the certificate's IP names; SNI takes host names only.
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: host, port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                let tls = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
                try channel.pipeline.syncOperations.addHandler(tls)
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
