import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// A Hummingbird application listening on 127.0.0.1 (the login's callback, the inspector).
///
/// Every route answers only requests addressed to the loopback name or address with the bound
/// port (`Host: 127.0.0.1:PORT` or `localhost:PORT`): a page from another site whose name has
/// been rebound to 127.0.0.1 (DNS rebinding) sends its own name and is refused.
struct LoopbackServer {
    /// The port bound (the one asked for, or the free one picked for 0).
    let port: Int
    private let task: Task<Void, any Error>
    private let services: ServiceGroup

    /// Starts the routes `routes` adds on 127.0.0.1:`port` and returns once the socket is bound.
    ///
    /// - Throws: ``CommandFailure`` naming `purpose` when it cannot listen, with `ifInUse` (what
    ///   to do) when the port is taken.
    static func start(
        port: Int, label: String, purpose: String, ifInUse: String, routes: (Router<BasicRequestContext>) -> Void
    ) async throws -> LoopbackServer {
        let hosts = HostCheck<BasicRequestContext>(port: port)
        let router = Router()
        router.add(middleware: hosts)
        routes(router)
        let (bound, boundContinuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let actual = channel.localAddress?.port ?? port
                hosts.bound(actual)
                boundContinuation.yield(actual)
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
            var reason = "the server stopped"
            do { try await task.value } catch {
                reason = (error as? IOError)?.errnoCode == EADDRINUSE ? "port \(port) is in use; \(ifInUse)" : "\(error)"
            }
            throw CommandFailure("cannot listen on 127.0.0.1:\(port) \(purpose): \(reason)")
        }
        return LoopbackServer(port: actual, task: task, services: services)
    }

    /// Runs until the process ends or ``stop()`` is called.
    func wait() async throws {
        try await task.value
    }

    /// Stops listening (gracefully: requests under way are answered first).
    func stop() async {
        await services.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// Refuses (403) a request whose `Host` is not `127.0.0.1` or `localhost` with the bound port
/// (the port may be left out only when it is 80, as browsers do); a request without one too.
struct HostCheck<Context: RequestContext>: RouterMiddleware {
    private let port: NIOLockedValueBox<Int>

    init(port: Int) {
        self.port = NIOLockedValueBox(port)
    }

    /// Records the port the server bound (the one asked for may have been 0).
    func bound(_ actual: Int) {
        port.withLockedValue { $0 = actual }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = port.withLockedValue { $0 }
        guard let host = request.head.authority, Self.isLoopback(host, port: port) else {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain;charset=UTF-8"
            headers[.cacheControl] = "no-store"
            return Response(
                status: .forbidden, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: "This server answers only at http://127.0.0.1:\(port).\n")))
        }
        return try await next(request, context)
    }

    /// Whether `host` (a `Host` header) names this server: `127.0.0.1` or `localhost`, with `port`.
    static func isLoopback(_ host: String, port: Int) -> Bool {
        let lowered = host.lowercased()
        let names = ["127.0.0.1", "localhost"]
        if names.contains(where: { lowered == "\($0):\(port)" }) { return true }
        return port == 80 && names.contains(lowered)
    }
}
