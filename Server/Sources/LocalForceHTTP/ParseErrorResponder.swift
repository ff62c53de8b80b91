import HTTPTypes
import LocalForce
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request NIO's HTTP/1.1 decoder refuses in LocalForce's error shape, then closes the
/// connection: a head (request line and headers) over ``LocalForceServer/Limits/maximumHeadSize``
/// or with more than ``LocalForceServer/Limits/maximumHeaderCount`` headers gets `431
/// REQUEST_HEADER_FIELDS_TOO_LARGE`, any other malformed request `400 INVALID_REQUEST`, each
/// with a JSON body (Hummingbird's own answer is an empty 400).
///
/// It sits after the decoder in each connection's pipeline, where the decoder's error passes.
final class ParseErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let limits: LocalForceServer.Limits
    private var answered = false

    init(limits: LocalForceServer.Limits) {
        self.limits = limits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let answer = APIResponse.error(Self.apiError(parseError, limits: limits))
        var fields = HTTPFields()
        fields[.contentType] = APIResponse.contentType
        fields[.contentLength] = String(answer.body.count)
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .init(code: answer.status), headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: answer.body))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// The error a parse failure is answered with.
    static func apiError(_ error: HTTPParserError, limits: LocalForceServer.Limits) -> APIError {
        if case .headerOverflow = error {
            return APIError(
                431, "REQUEST_HEADER_FIELDS_TOO_LARGE",
                "The request line and headers take more than \(limits.maximumHeadSize) bytes, or there are more than \(limits.maximumHeaderCount) headers"
            )
        }
        return APIError(400, "INVALID_REQUEST", "The request is not valid HTTP/1.1 (\(error))")
    }
}
