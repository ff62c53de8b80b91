import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Where the browser comes back after the login: a small HTTP server on 127.0.0.1 that takes
/// the first redirect of this login (its `state` is the login's: another page cannot end or
/// disturb the login), and tells the browser it may close. Nothing from the request is
/// echoed into the page.
final class LoopbackCallback: Sendable {
    /// The redirect URI to register: `http://127.0.0.1:<port>/OauthRedirect`.
    let redirectURI: String
    private let queries: AsyncStream<[String: String]>
    private let server: LoopbackServer
    private let expectedState: NIOLockedValueBox<String?>

    static let path = "/OauthRedirect"

    private init(
        redirectURI: String, queries: AsyncStream<[String: String]>, server: LoopbackServer, expectedState: NIOLockedValueBox<String?>
    ) {
        self.redirectURI = redirectURI
        self.queries = queries
        self.server = server
        self.expectedState = expectedState
    }

    /// Takes only redirects carrying this `state` (the login's, once it is made).
    func expect(state: String) {
        expectedState.withLockedValue { $0 = state }
    }

    /// Listens on `port` (0: any free port) and returns once the socket is bound.
    static func listen(port: Int) async throws -> LoopbackCallback {
        let (queries, delivery) = AsyncStream<[String: String]>.makeStream()
        let expectedState = NIOLockedValueBox<String?>(nil)
        let server = try await LoopbackServer.start(
            port: port, label: "msync-login", purpose: "for the login's redirect",
            ifInUse: "give another --callback-port (the one registered as the app's callback URL)"
        ) { router in
            router.get(RouterPath(stringLiteral: path)) { request, _ -> Response in
                var query: [String: String] = [:]
                for (name, value) in request.uri.queryParameters where query[String(name)] == nil { query[String(name)] = String(value) }
                guard let expected = expectedState.withLockedValue({ $0 }), query["state"] == expected,
                    query["code"] != nil || query["error"] != nil
                else {
                    return page("msync login", "This is not the redirect of the login msync is waiting for.", 400)
                }
                delivery.yield(query)
                if query["error"] != nil {
                    return page("Login failed", "The login was not completed; msync says why. You can close this window.", 200)
                }
                return page("Logged in", "msync has the login. You can close this window.", 200)
            }
        }
        return LoopbackCallback(
            redirectURI: "http://127.0.0.1:\(server.port)\(path)", queries: queries, server: server, expectedState: expectedState)
    }

    /// The first redirect's query, or a timeout error.
    func wait(timeout: Duration) async throws -> [String: String] {
        let queries = self.queries
        return try await withThrowingTaskGroup(of: [String: String]?.self) { group in
            group.addTask {
                var iterator = queries.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let query = first else {
                throw CommandFailure("no login came back within \(timeout.components.seconds) seconds")
            }
            return query
        }
    }

    /// Stops listening (gracefully: the browser gets its page first).
    func stop() async {
        await server.stop()
    }

    private static func page(_ title: String, _ message: String, _ status: Int) -> Response {
        let html = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title></head>
            <body style="font-family: system-ui, sans-serif; margin: 4rem auto; max-width: 30rem">
            <h1 id="title">\(title)</h1><p id="message">\(message)</p></body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html;charset=UTF-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
