import Hummingbird
import LocalForce

/// The innermost middleware: a request no route takes (a method a resource does not serve, a
/// path outside the resources, a percent-encoded path the router does not match) gets
/// LocalForce's own answer, with its body and inside the fault injection like any other:
/// Salesforce's `NOT_FOUND` or `METHOD_NOT_ALLOWED`, or the work itself when LocalForce
/// serves the decoded path.
struct UnroutedRequestMiddleware: RouterMiddleware {
    let localForce: LocalForce

    func handle(
        _ request: Request, context: LocalForceRequestContext, next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return Responses.response(
                await localForce.handle(context.apiRequest), acceptEncoding: context.apiRequest.headers["accept-encoding"])
        }
    }
}
