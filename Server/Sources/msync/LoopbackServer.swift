import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird application listening on 127.0.0.1 (the login's callback, the inspector).
struct LoopbackServer {
    /// The port bound (the one asked for, or the free one picked for 0).
    let port: Int
    private let task: Task<Void, any Error>
    private let services: ServiceGroup

    /// Starts `router` on 127.0.0.1:`port` and returns once the socket is bound.
    ///
    /// - Throws: ``CommandFailure`` naming `purpose` when it cannot listen.
    static func start(_ router: Router<BasicRequestContext>, port: Int, label: String, purpose: String) async throws -> LoopbackServer {
        let (bound, boundContinuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: label)
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
            var reason = "the server stopped"
            do { try await task.value } catch { reason = "\(error)" }
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
