import Hummingbird
import LocalForce

/// The first gate: builds the request LocalForce reads from the head and answers
/// `INVALID_SESSION_ID` to a request without a live token (the versions list and the OAuth
/// endpoints that issue tokens excepted), before any byte of its body is read or any memory
/// reserved for it. The open endpoints get small bodies only (``BodyLimitMiddleware``).
struct AuthenticationMiddleware: RouterMiddleware {
    let localForce: LocalForce

    func handle(
        _ request: Request, context: LocalForceRequestContext, next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        // HTTP/1's Host header arrives as the `:authority` pseudo-header; LocalForce builds its
        // instance URL (in OAuth answers) from it.
        if let authority = request.head.authority { headers["host"] = authority }
        var head = APIRequest(method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: headers, body: [])
        head.connection = context.connection
        // LocalForce's own answer: 401 here, or 404 for a path it does not serve.
        guard localForce.admits(head) else { return Responses.response(await localForce.handle(head)) }
        var context = context
        context.apiRequest = head
        return try await next(request, context)
    }
}
