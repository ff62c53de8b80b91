import HTTPTypes
import Hummingbird
import LocalForce

/// LocalForce's HTTP surface on Hummingbird's router: the resources it serves, behind the
/// middleware that authenticates, bounds bodies and injects faults, in that order; requests
/// no route takes get LocalForce's own answer (``UnroutedRequestMiddleware``).
enum LocalForceRouter {
    /// The resources, each served for every method (LocalForce answers a method a resource
    /// does not take with Salesforce's `METHOD_NOT_ALLOWED`).
    static let paths: [RouterPath] = [
        "/services/data", "/services/data/**", "/services/async/**", "/services/oauth2/**", "/id/**", "/api/**", "/cometd/**",
    ]
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]

    static func responder(for localForce: LocalForce, limits: LocalForceServer.Limits) -> RouterResponder<LocalForceRequestContext> {
        let router = Router(context: LocalForceRequestContext.self)
        // Middleware first: Hummingbird wraps each route in the middleware added before it.
        router.add(middleware: AuthenticationMiddleware(localForce: localForce))
        router.add(middleware: BodyLimitMiddleware(localForce: localForce, limits: limits))
        router.add(middleware: FaultInjectionMiddleware(localForce: localForce))
        router.add(middleware: UnroutedRequestMiddleware(localForce: localForce))
        for path in paths {
            for method in methods {
                router.on(path, method: method) { _, context in
                    Responses.response(
                        await localForce.handle(context.apiRequest), acceptEncoding: context.apiRequest.headers["accept-encoding"])
                }
            }
        }
        return router.buildResponder()
    }
}
