public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
public import LocalForce
import Logging
import NIOCore
import NIOPosix
import SalesforceWire
import ServiceLifecycle

/// LocalForce on a socket: Hummingbird's HTTP/1.1 server in front of ``LocalForce``.
///
/// ```swift
/// let server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
/// defer { Task { await server.stop() } }
/// print(server.baseURL)   // http://127.0.0.1:<free port>
/// ```
public final class LocalForceServer: Sendable {
    /// `http://host:port`, with the port actually bound.
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
    public static func start(_ localForce: LocalForce, host: String = "127.0.0.1", port: Int = 0) async throws -> LocalForceServer {
        let (bound, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "LocalForce")
        logger.logLevel = .warning
        // HummingbirdCore's server, not `Application`: the `Date` header must come from the
        // server's clock, which ``LocalForce/clockOffset`` may set apart from the machine's.
        let server = try HTTPServerBuilder.http1(configuration: .init(idleTimeout: .seconds(60))).buildServer(
            // A connection that sends nothing for a minute (a stalled body included) is closed.
            configuration: ServerConfiguration(address: .hostname(host, port: port), serverName: nil),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: { request, writer, _ in
                var response = await respond(to: request, with: localForce)
                response.headers[.date] = HTTPDate.format(localForce.currentTime())
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            }
        )
        let services = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [server], gracefulShutdownSignals: [], logger: logger))
        // A server that cannot bind (port taken, unknown host) ends its run with an error before it
        // is running: finishing the stream then lets the caller see that error instead of waiting.
        let task = Task {
            defer { continuation.finish() }
            try await services.run()
        }
        var iterator = bound.makeAsyncIterator()
        guard let actualPort = await iterator.next() else {
            // Not bound, or the caller was cancelled: make sure the server is not left running.
            task.cancel()
            var reason = "the server stopped before it was listening"
            do { try await task.value } catch { reason = "\(error)" }
            throw APIError(500, "SERVER_START_FAILED", "LocalForce could not listen on \(host):\(port): \(reason)")
        }
        guard let url = URL(string: "http://\(host):\(actualPort)") else { throw APIError(500, "SERVER_START_FAILED", "bad host \(host)") }
        return LocalForceServer(baseURL: url, localForce: localForce, task: task, services: services)
    }

    /// Stops the server gracefully (in-flight requests finish) and waits for it.
    public func stop() async {
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

    private static func respond(to request: Request, with localForce: LocalForce) async -> Response {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        // Without the token, no byte of the body is read and no memory is reserved.
        let head = APIRequest(method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: headers, body: [])
        guard localForce.admits(head) else { return response(await localForce.handle(head)) }
        let tooLarge = APIError(413, "REQUEST_TOO_LARGE", "Request body exceeds \(localForce.maximumBodySize) bytes")
        // A declared length decides before any byte is read. A chunked body may be as large as
        // allowed; a request with neither has no body.
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > localForce.maximumBodySize { return response(.error(tooLarge)) }
        let chunked = request.headers[.transferEncoding]?.lowercased().contains("chunked") == true
        let expected = declared ?? (chunked ? localForce.maximumBodySize : 0)
        let (weight, overflow) = expected.multipliedReportingOverflow(by: LocalForce.bodyMemoryFactor)
        let reservation = expected > LocalForce.reservedBodyThreshold ? (overflow ? Int.max : weight) : 0
        if reservation > 0 { await localForce.bodyMemory.reserve(reservation) }
        let answer = await respond(to: request, head: head, with: localForce, tooLarge: tooLarge)
        if reservation > 0 { await localForce.bodyMemory.release(reservation) }
        return answer
    }

    private static func respond(to request: Request, head: APIRequest, with localForce: LocalForce, tooLarge: APIError) async -> Response {
        let body: [UInt8]
        do {
            var buffer = try await request.body.collect(upTo: localForce.maximumBodySize)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            return response(.error(tooLarge))
        } catch {
            // The connection ended before the declared body arrived.
            return response(.error(APIError(400, "INVALID_REQUEST", "The request body is incomplete")))
        }
        var apiRequest = head
        apiRequest.body = body
        switch await localForce.deliver(apiRequest) {
        case .response(let answer): return response(answer)
        case .dropConnection: return droppedConnection()
        }
    }

    private struct DroppedConnection: Error {}

    /// A response whose body fails midway: the server closes the connection, the client sees it lost.
    private static func droppedConnection() -> Response {
        var fields = HTTPFields()
        fields[.contentLength] = "4096"
        fields[.contentType] = APIResponse.contentType
        return Response(
            status: .ok, headers: fields,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "{"))
                throw DroppedConnection()
            })
    }

    private static func response(_ response: APIResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
