import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Keeps HTTP/1.0's rules once the version is gone: gives a request without a `Host` header
/// the server's own address as its host (only HTTP/1.1 requires one, RFC 9112 §3.2, and
/// HTTP/1.0 clients and health checks still send requests without it), and marks a request
/// that does not ask for keep-alive `Connection: close`, so that its connection closes after
/// the answer as HTTP/1.0 clients expect. It reads NIO's request heads, which still carry the
/// version, so it sits before the conversion to HTTP types (which drops the version);
/// ``Installer`` puts it there.
final class HTTP10Host: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Added with the other per-connection handlers (after the conversion, where Hummingbird
    /// adds them), it adds an ``HTTP10Host`` before the conversion; then it passes data on.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            if let codec = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self) {
                try? pipeline.addHandler(HTTP10Host(), position: .before(codec.handler))
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), head.version == .http1_0 else {
            context.fireChannelRead(data)
            return
        }
        if !head.headers.contains(name: "host") {
            head.headers.add(name: "Host", value: Self.host(of: context.channel.localAddress))
        }
        if !head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "keep-alive" }) {
            head.headers.replaceOrAdd(name: "Connection", value: "close")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The address a client reached the server at, as a Host header writes it.
    static func host(of address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress, let port = address.port else { return "localhost" }
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }
}
