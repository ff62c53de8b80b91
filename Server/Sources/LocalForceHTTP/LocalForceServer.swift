public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import LocalForce
import Logging
import NIOCore
import NIOPosix
import SalesforceWire
import ServiceLifecycle

/// LocalForce on a socket: Hummingbird's HTTP/1.1 server in front of ``LocalForce``, over
/// plain HTTP or HTTPS (``TLS``).
///
/// <!-- snippet: Server/Tests/DocumentationTests/SymbolReference.swift#server -->
/// ```swift
/// let server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
/// defer { Task { await server.stop() } }
/// print(server.baseURL) // http://127.0.0.1:<free port>
/// ```
public final class LocalForceServer: Sendable {
    /// `http://host:port` (`https://` with TLS), with the port actually bound.
    public let baseURL: URL
    /// The org it serves.
    public let localForce: LocalForce
    private let task: Task<Void, any Error>
    private let services: ServiceGroup

    private init(baseURL: URL, localForce: LocalForce, task: Task<Void, any Error>, services: ServiceGroup) {
        self.baseURL = baseURL
        self.localForce = localForce
        self.task = task
        self.services = services
    }

    /// Starts serving and returns once the socket is bound (`port: 0` picks a free port).
    ///
    /// - Parameters:
    ///   - limits: what the HTTP layer accepts of a connection (see ``Limits``).
    ///   - tls: the certificate and key to serve HTTPS with; plain HTTP without.
    public static func start(
        _ localForce: LocalForce, host: String = "127.0.0.1", port: Int = 0, limits: Limits = Limits(), tls: TLS? = nil
    ) async throws -> LocalForceServer {
        let (bound, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "LocalForce")
        logger.logLevel = .warning
        let router = LocalForceRouter.responder(for: localForce, limits: limits)
        let source = LocalForceRequestContext.Source(logger: logger)
        // HummingbirdCore's server, not `Application`: the `Date` header must come from the
        // server's clock, which ``LocalForce/clockOffset`` may set apart from the machine's.
        var builder = HTTPServerBuilder.http1(configuration: channel(limits))
        if let tls { builder = try .tls(builder, tlsConfiguration: try tls.configuration()) }
        let server = try builder.buildServer(
            configuration: ServerConfiguration(address: .hostname(host, port: port), serverName: nil),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: { request, writer, channel in
                var source = source
                source.channel = channel
                let response = await answer(request, router: router, source: source, localForce: localForce)
                // After an answer given before the whole body was read (`Connection: close`),
                // Hummingbird reads and drops what is left of it; a body that stalled has been
                // cancelled, so that ends at once.
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { listener in
                continuation.yield(listener.localAddress?.port ?? port)
                continuation.finish()
            }
        )
        let services = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [server], gracefulShutdownSignals: [], logger: logger))
        // A server that cannot bind (port taken, unknown host) ends its run with an error before it
        // is running: finishing the stream then lets the caller see that error instead of waiting.
        @Sendable func run() async throws {
            defer { continuation.finish() }
            try await services.run()
        }
        // Connections are child tasks of this one, so they inherit where it runs.
        let task: Task<Void, any Error>
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            task = Task(executorPreference: EventLoopTaskExecutor.shared) { try await run() }
        } else {
            task = Task { try await run() }
        }
        let actualPort = try await boundPort(bound, task: task, host: host, port: port)
        let scheme = tls == nil ? "http" : "https"
        // An IPv6 address is bracketed in a URL.
        let urlHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let url = URL(string: "\(scheme)://\(urlHost):\(actualPort)") else {
            throw APIError(500, "SERVER_START_FAILED", "bad host \(host)")
        }
        localForce.advertise(url.absoluteString)
        return LocalForceServer(baseURL: url, localForce: localForce, task: task, services: services)
    }

    /// The HTTP/1.1 channel: its parse-error answers, idle timeout and header limits.
    private static func channel(_ limits: Limits) -> HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            additionalChannelHandlers: [HTTP10Host.Installer(), ParseErrorResponder(limits: limits), ConnectionWatcher()],
            // A connection that sends nothing for a minute is closed; a body that arrives too
            // slowly is refused sooner (``Limits/minimumBodyRate``).
            idleTimeout: .seconds(60),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHeadSize, maxHeaderListSize: limits.maximumHeadSize,
                maxHeaderFieldCount: limits.maximumHeaderCount))
    }

    /// The router's answer to a request (a request without Host is refused), dated by the org's clock.
    private static func answer(
        _ request: Request, router: RouterResponder<LocalForceRequestContext>, source: LocalForceRequestContext.Source,
        localForce: LocalForce
    ) async -> Response {
        var response: Response
        if request.head.authority == nil {
            // RFC 9112: an HTTP/1.1 request without Host is refused (an HTTP/1.0 one has been
            // given the server's address by ``HTTP10Host``).
            response = Responses.closing(.error(APIError(400, "INVALID_REQUEST", "The request has no Host header")))
        } else {
            do {
                response = try await router.respond(to: request, context: LocalForceRequestContext(source: source))
            } catch {
                response = Responses.response(.error(LocalForce.unexpected(error)))
            }
        }
        response.headers[.date] = HTTPDate.format(localForce.currentTime())
        return response
    }

    /// The port the server listens on, once it does; the reason it could not, as an error.
    private static func boundPort(_ bound: AsyncStream<Int>, task: Task<Void, any Error>, host: String, port: Int) async throws -> Int {
        var iterator = bound.makeAsyncIterator()
        if let actualPort = await iterator.next() { return actualPort }
        // Not bound, or the caller was cancelled: make sure the server is not left running.
        task.cancel()
        var reason = "the server stopped before it was listening"
        do { try await task.value } catch {
            // The common case, said plainly (bind's own text ends in "(errno: 98)").
            if (error as? IOError)?.errnoCode == EADDRINUSE {
                throw APIError(500, "SERVER_START_FAILED", "LocalForce could not listen on \(host):\(port): port \(port) is in use")
            }
            reason = "\(error)"
        }
        throw APIError(500, "SERVER_START_FAILED", "LocalForce could not listen on \(host):\(port): \(reason)")
    }

    /// Stops the server gracefully (in-flight requests finish) and waits for it.
    public func stop() async {
        localForce.endLongPolls() // or the graceful shutdown would wait for each one's timeout
        await services.triggerGracefulShutdown()
        _ = try? await task.value
        await localForce.database.close()
    }

    /// Waits until the server stops (for `msync serve`), then releases the database.
    public func wait() async throws {
        do {
            try await task.value
        } catch {
            await localForce.database.close()
            throw error
        }
        await localForce.database.close()
    }
}
