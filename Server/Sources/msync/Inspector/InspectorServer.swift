import FastJSON
import Foundation
import HTTPTypes
import Hummingbird

/// The inspector's HTTP server on 127.0.0.1: the page, its script and style, and the JSON API,
/// every one refused (401) without the token printed at start, and (403) when addressed by a
/// name other than 127.0.0.1 or localhost (``HostCheck``).
struct InspectorServer {
    /// `http://127.0.0.1:<port>`.
    let address: String
    private let server: LoopbackServer

    /// Listens and returns once the socket is bound.
    static func start(data: InspectorData, token: String, port: Int) async throws -> InspectorServer {
        let server = try await LoopbackServer.start(
            port: port, label: "msync-inspect", purpose: "for the inspector", ifInUse: "give another --port (0 picks a free one)"
        ) { router in
            router.add(middleware: TokenCheck(token: token))
            router.get("/") { _, _ in asset(InspectorPage.html(token: token), type: "text/html;charset=UTF-8") }
            router.get("/app.js") { _, _ in asset(InspectorPage.script, type: "text/javascript;charset=UTF-8") }
            router.get("/app.css") { _, _ in asset(InspectorPage.style, type: "text/css;charset=UTF-8") }
            router.get("/api/:endpoint") { request, context -> Response in
                let answer = await data.answer(context.parameters.get("endpoint") ?? "", formDecoded(request.uri.query ?? ""))
                var headers = HTTPFields()
                headers[.contentType] = "application/json;charset=UTF-8"
                headers[.cacheControl] = "no-store"
                return Response(
                    status: .init(code: answer.status), headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body.sortedJSONBytes)))
            }
        }
        return InspectorServer(address: "http://127.0.0.1:\(server.port)", server: server)
    }

    /// A query string's parameters as a form encodes them (`+` is a space, `%2B` a plus), the
    /// first value of each name; a malformed escape keeps its text as it is.
    static func formDecoded(_ query: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decoded = parts.map { part in
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            guard let name = decoded.first, parameters[name] == nil else { continue }
            parameters[name] = decoded.count > 1 ? decoded[1] : ""
        }
        return parameters
    }

    /// Runs until the process is stopped.
    func wait() async throws {
        try await server.wait()
    }

    private static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        // Everything is served by this binary: no other origin, no inline script, no framing.
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Refuses every request that does not carry the inspector's token, in the `token` query
/// parameter or the `X-Inspector-Token` header; compared in constant time.
struct TokenCheck<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let header = HTTPField.Name("X-Inspector-Token").flatMap { request.headers[$0] }
        let given = header ?? request.uri.queryParameters.get("token") ?? ""
        guard Self.same(Array(given.utf8), Array(token.utf8)) else {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain;charset=UTF-8"
            return Response(
                status: .unauthorized, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: "This inspector needs the token msync inspect printed.\n")))
        }
        return try await next(request, context)
    }

    static func same(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}
