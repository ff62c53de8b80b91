import Hummingbird
import LocalForce
import Logging
import NIOCore

/// What a LocalForce request carries through the middleware: the request as ``LocalForce``
/// reads it, built by ``AuthenticationMiddleware`` and completed with its body by
/// ``BodyLimitMiddleware``.
struct LocalForceRequestContext: RequestContext {
    /// Where a context comes from: the server's logger, and the connection's channel (a long
    /// poll ends when it closes).
    struct Source: RequestContextSource {
        let logger: Logger
        var channel: (any Channel)?
    }

    var coreContext: CoreRequestContextStorage
    /// The request for ``LocalForce/handle(_:)``; its body is empty until the body middleware read it.
    var apiRequest = APIRequest(method: "GET", path: "/", query: nil, headers: [:], body: [])

    /// The client's connection, from the source's channel.
    let connection: ClientConnection?

    init(source: Source) {
        coreContext = CoreRequestContextStorage(source: source)
        connection = source.channel.flatMap(ConnectionWatcher.connection(for:))
    }
}
