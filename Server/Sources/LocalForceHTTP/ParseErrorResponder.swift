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
/// It sits after the decoder in each connection's pipeline, where the decoder's errors pass:
/// - an error inside a body (the client left before its end) goes on to whoever reads the body,
///   which answers it as an incomplete body;
/// - an error between requests is answered after the responses still owed on the connection,
///   never ahead of them.
final class ParseErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: LocalForceServer.Limits
    /// A request's head has arrived and its end not yet.
    private var inBody = false
    /// Requests whose response has not ended yet.
    private var unanswered = 0
    /// An error waiting for the responses owed before it.
    private var deferred: APIError?
    private var answered = false

    init(limits: LocalForceServer.Limits) {
        self.limits = limits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inBody = true
            unanswered += 1
        case .end: inBody = false
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        guard ended else { return }
        unanswered = max(0, unanswered - 1)
        if unanswered == 0, let error = deferred {
            deferred = nil
            answer(error, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, !inBody else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered, deferred == nil else { return }
        let apiError = Self.apiError(parseError, limits: limits)
        if unanswered == 0 { answer(apiError, context: context) } else { deferred = apiError }
    }

    /// Writes the error's answer, then closes the connection.
    private func answer(_ error: APIError, context: ChannelHandlerContext) {
        answered = true
        let answer = APIResponse.error(error)
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
        return APIError(400, "INVALID_REQUEST", "The request is not valid HTTP/1.1")
    }
}
