import Hummingbird
import LocalForce

/// The org's configured faults around the route's work (see ``FaultInjection``): latency,
/// injected errors, connections dropped before or after the work, late commits.
struct FaultInjectionMiddleware: RouterMiddleware {
    let localForce: LocalForce

    func handle(
        _ request: Request, context: LocalForceRequestContext, next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        switch try await localForce.injectingFaults(context.apiRequest, handle: { try await next(request, context) }) {
        case .handled(let response): response
        case .injected(let answer): Responses.response(answer)
        case .dropped: Responses.droppedConnection()
        }
    }
}
