import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Keeps HTTP/1.0's rules once the version is gone: gives a request without a `Host` header
/// the server's own address as its host (only HTTP/1.1 requires one, RFC 9112 §3.2, and
/// HTTP/1.0 clients and health checks still send requests without it), marks the request
/// `Connection: close`, so that its connection closes after the answer, and answers it as
/// HTTP/1.0 (the conversion writes every answer as HTTP/1.1, which would send a body without a
/// length chunked, a framing HTTP/1.0 does not know; as HTTP/1.0, such a body ends with the
/// connection). It sits before the conversion to HTTP types (which drops the version), where
/// NIO's request and response heads still carry it; ``Installer`` puts it there.
final class HTTP10Host: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The versions of the requests not answered yet, in order (requests may be pipelined).
    private var versions: [HTTPVersion] = []

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
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        versions.append(head.version)
        guard head.version == .http1_0 else {
            context.fireChannelRead(data)
            return
        }
        if !head.headers.contains(name: "host") {
            head.headers.add(name: "Host", value: Self.host(of: context.channel.localAddress))
        }
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), let version = versions.first else {
            context.write(data, promise: promise)
            return
        }
        // A final answer ends its request's turn (an interim one, 100 Continue, does not).
        if head.status.code >= 200 { versions.removeFirst() }
        guard version == .http1_0 else {
            context.write(data, promise: promise)
            return
        }
        head.version = .http1_0
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    /// The address a client reached the server at, as a Host header writes it.
    static func host(of address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress, let port = address.port else { return "localhost" }
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }
}
