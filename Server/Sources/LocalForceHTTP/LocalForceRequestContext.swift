import Hummingbird
import LocalForce
import Logging

/// What a LocalForce request carries through the middleware: the request as ``LocalForce``
/// reads it, built by ``AuthenticationMiddleware`` and completed with its body by
/// ``BodyLimitMiddleware``.
struct LocalForceRequestContext: RequestContext {
    /// Where a context comes from: the server's logger (no channel is needed).
    struct Source: RequestContextSource {
        let logger: Logger
    }

    var coreContext: CoreRequestContextStorage
    /// The request for ``LocalForce/handle(_:)``; its body is empty until the body middleware read it.
    var apiRequest = APIRequest(method: "GET", path: "/", query: nil, headers: [:], body: [])

    init(source: Source) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}
