import ArgumentParser
import Foundation
import Hummingbird
import Locking
import Logging
import ServiceLifecycle

/// Where the browser comes back after the login: a small HTTP server on 127.0.0.1 that takes
/// the first redirect of this login (its `state` is the login's: another page cannot end or
/// disturb the login), and tells the browser it may close. Nothing from the request is
/// echoed into the page.
final class LoopbackCallback: Sendable {
    /// The redirect URI to register: `http://127.0.0.1:<port>/OauthRedirect`.
    let redirectURI: String
    private let queries: AsyncStream<[String: String]>
    private let task: Task<Void, any Error>
    private let services: ServiceGroup
    private let expectedState: Locked<String?>

    static let path = "/OauthRedirect"

    private init(
        redirectURI: String, queries: AsyncStream<[String: String]>, task: Task<Void, any Error>, services: ServiceGroup,
        expectedState: Locked<String?>
    ) {
        self.redirectURI = redirectURI
        self.queries = queries
        self.task = task
        self.services = services
        self.expectedState = expectedState
    }

    /// Takes only redirects carrying this `state` (the login's, once it is made).
    func expect(state: String) {
        expectedState.withLock { $0 = state }
    }

    /// Listens on `port` (0: any free port) and returns once the socket is bound.
    static func listen(port: Int) async throws -> LoopbackCallback {
        let (queries, delivery) = AsyncStream<[String: String]>.makeStream()
        let (bound, boundContinuation) = AsyncStream<Int>.makeStream()
        let expectedState = Locked<String?>(nil)
        let router = Router()
        router.get(RouterPath(stringLiteral: path)) { request, _ -> Response in
            var query: [String: String] = [:]
            for (name, value) in request.uri.queryParameters where query[String(name)] == nil { query[String(name)] = String(value) }
            guard let expected = expectedState.current, query["state"] == expected, query["code"] != nil || query["error"] != nil else {
                return page("msync login", "This is not the redirect of the login msync is waiting for.", 400)
            }
            delivery.yield(query)
            if query["error"] != nil {
                return page("Login failed", "The login was not completed; msync says why. You can close this window.", 200)
            }
            return page("Logged in", "msync has the login. You can close this window.", 200)
        }
        var logger = Logger(label: "msync-login")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port ?? port)
                boundContinuation.finish()
            }, logger: logger)
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { boundContinuation.finish() }
            try await services.run()
        }
        var iterator = bound.makeAsyncIterator()
        guard let actual = await iterator.next() else {
            task.cancel()
            var reason = "the listener stopped"
            do { try await task.value } catch { reason = "\(error)" }
            throw CommandFailure("cannot listen on 127.0.0.1:\(port) for the login's redirect: \(reason)")
        }
        return LoopbackCallback(
            redirectURI: "http://127.0.0.1:\(actual)\(path)", queries: queries, task: task, services: services, expectedState: expectedState
        )
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
        await services.triggerGracefulShutdown()
        _ = try? await task.value
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
