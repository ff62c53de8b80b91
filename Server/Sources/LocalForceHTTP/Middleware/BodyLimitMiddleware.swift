import Hummingbird
import LocalForce
import NIOCore

/// Reads the body into the request, within LocalForce's limits: a declared length above the
/// request's limit (``LocalForce/maximumBodySize`` with a token, 64 KiB for the OAuth
/// endpoints open without one) is refused (413) before any byte is read, a chunked body is cut
/// off at it, and a large body first reserves its parsing memory from the org's body budget,
/// so concurrent large requests wait their turn instead of exhausting memory.
struct BodyLimitMiddleware: RouterMiddleware {
    let localForce: LocalForce

    func handle(
        _ request: Request, context: LocalForceRequestContext, next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        let limit = localForce.bodyLimit(for: context.apiRequest)
        let tooLarge = APIError(413, "REQUEST_TOO_LARGE", "Request body exceeds \(limit) bytes")
        // A declared length decides before any byte is read. A chunked body may be as large as
        // allowed; a request with neither has no body.
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > limit { return Responses.response(.error(tooLarge)) }
        let chunked = request.headers[.transferEncoding]?.lowercased().contains("chunked") == true
        let expected = declared ?? (chunked ? limit : 0)
        let (weight, overflow) = expected.multipliedReportingOverflow(by: LocalForce.bodyMemoryFactor)
        let reservation = expected > LocalForce.reservedBodyThreshold ? (overflow ? Int.max : weight) : 0
        if reservation > 0 { await localForce.bodyMemory.reserve(reservation) }
        do {
            let answer = try await readBody(request, context: context, limit: limit, tooLarge: tooLarge, next: next)
            if reservation > 0 { await localForce.bodyMemory.release(reservation) }
            return answer
        } catch {
            if reservation > 0 { await localForce.bodyMemory.release(reservation) }
            throw error
        }
    }

    private func readBody(
        _ request: Request, context: LocalForceRequestContext, limit: Int, tooLarge: APIError,
        next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        do {
            var buffer = try await request.body.collect(upTo: limit)
            context.apiRequest.body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            return Responses.response(.error(tooLarge))
        } catch {
            // The connection ended before the declared body arrived.
            return Responses.response(.error(APIError(400, "INVALID_REQUEST", "The request body is incomplete")))
        }
        return try await next(request, context)
    }
}
