import CompressNIO
import Hummingbird
import LocalForce
import NIOCore

/// Reads the body into the request, within LocalForce's limits:
/// - a declared length above the request's limit (``LocalForce/maximumBodySize`` with a token,
///   64 KiB for the OAuth endpoints open without one) is refused (413) before any byte is read,
///   and a body that grows past it while arriving is cut off there (413);
/// - a body that arrives slower than ``LocalForceServer/Limits/minimumBodyRate`` is refused (408),
///   a body shorter than declared is 400 (``BodyReader``);
/// - the bytes of a large body count against ``LocalForce/bodyArrival`` as they arrive (and as
///   a `gzip` or `deflate` body inflates, within the same limit): when they do not fit, 503;
/// - only then, a large body reserves the memory its parsing takes from ``LocalForce/bodyMemory``,
///   by its actual size, so that concurrent large requests wait their turn instead of
///   exhausting memory. A stalled client holds nothing but its own connection.
struct BodyLimitMiddleware: RouterMiddleware {
    let localForce: LocalForce
    let limits: LocalForceServer.Limits

    func handle(
        _ request: Request, context: LocalForceRequestContext, next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        if localForce.streamsBody(context.apiRequest) {
            return try await StreamedBody.handle(request, context: context, localForce: localForce, next: next)
        }
        let limit = localForce.bodyLimit(for: context.apiRequest)
        let tooLarge = APIError(413, "REQUEST_TOO_LARGE", "Request body exceeds \(limit) bytes")
        let overloaded = APIError(
            503, "SERVER_UNAVAILABLE", "Too many large request bodies are arriving at once; retry in a moment")
        // A declared length decides before any byte is read.
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > limit { return Responses.closing(.error(tooLarge)) }
        // No body at all (most GETs): nothing to read or watch.
        let hasBody = (declared ?? 0) > 0 || request.headers[.transferEncoding] != nil
        guard hasBody else { return try await next(request, context) }
        var body: ByteBuffer
        var arrival: Int
        switch await BodyReader.read(request.body, declared: declared, limit: limit, limits: limits, localForce: localForce) {
        case .complete(let buffer, let held): (body, arrival) = (buffer, held)
        case .tooLarge: return Responses.closing(.error(tooLarge))
        case .overloaded: return Responses.closing(.error(overloaded))
        case .tooSlow:
            return Responses.closing(
                .error(
                    APIError(
                        408, "REQUEST_TIMEOUT",
                        "The request body arrived slower than \(limits.minimumBodyRate) bytes per second")))
        case .incomplete:
            // The connection ended before the declared body arrived.
            return Responses.closing(.error(APIError(400, "INVALID_REQUEST", "The request body is incomplete")))
        }
        if let encoding = request.headers[.contentEncoding] {
            switch await inflate(body, encoding: encoding, limit: limit, holding: arrival, overloaded: overloaded) {
            case .success(let inflated): (body, arrival) = inflated
            case .failure(let error): return Responses.response(.error(error))
            }
        }
        var context = context
        let size = body.readableBytes
        context.apiRequest.body = body.readBytes(length: size) ?? []
        return try await withParsingReservation(size, releasing: arrival) { try await next(request, context) }
    }

    /// The body inflated, with what it holds of ``LocalForce/bodyArrival`` from then (in place of
    /// `held`); on an error, `held` is released.
    private func inflate(_ body: ByteBuffer, encoding: String, limit: Int, holding held: Int, overloaded: APIError) async
        -> Result<(ByteBuffer, Int), APIError>
    {
        let arrivalBudget = localForce.bodyArrival
        // What inflating may take, at most (deflate's best ratio is about 1:1032), counted
        // like arriving bytes before any is allocated; then what it took.
        let (ratio, overflow) = body.readableBytes.multipliedReportingOverflow(by: 1032)
        let bound = min(limit, overflow ? limit : ratio)
        let extra = bound > LocalForce.reservedBodyThreshold ? bound : 0
        guard await arrivalBudget.tryReserve(extra) else {
            await arrivalBudget.release(held)
            return .failure(overloaded)
        }
        let decoded: ByteBuffer
        switch ContentCoding.decode(body, encoding: encoding, limit: limit) {
        case .success(let body): decoded = body
        case .failure(let error):
            await arrivalBudget.release(held + extra)
            return .failure(error)
        }
        // From here the inflated body is what is held.
        let inflated = decoded.readableBytes > LocalForce.reservedBodyThreshold ? decoded.readableBytes : 0
        await arrivalBudget.release(held + extra)
        guard await arrivalBudget.tryReserve(inflated) else { return .failure(overloaded) }
        return .success((decoded, inflated))
    }

    /// Runs `next` holding the memory a body of `size` bytes takes to parse (a large one
    /// waits for it in ``LocalForce/bodyMemory``), having released `arrival`.
    private func withParsingReservation(_ size: Int, releasing arrival: Int, _ next: () async throws -> Response) async throws
        -> Response
    {
        let arrivalBudget = localForce.bodyArrival
        let (weight, overflow) = size.multipliedReportingOverflow(by: LocalForce.bodyMemoryFactor)
        let reservation = size > LocalForce.reservedBodyThreshold ? (overflow ? Int.max : weight) : 0
        guard reservation > 0 else {
            await arrivalBudget.release(arrival)
            return try await next()
        }
        await localForce.bodyMemory.reserve(reservation)
        // The parsing reservation covers the body from here.
        await arrivalBudget.release(arrival)
        do {
            let answer = try await next()
            await localForce.bodyMemory.release(reservation)
            return answer
        } catch {
            await localForce.bodyMemory.release(reservation)
            throw error
        }
    }
}

/// `Content-Encoding` of request bodies: `gzip` and `deflate` (and `identity`), as Salesforce
/// accepts them for large loads.
enum ContentCoding {
    /// The body decoded, or the error: 415 for a coding LocalForce does not know, 400 for a body
    /// that is not what it says, 413 when it inflates past `limit`.
    static func decode(_ body: ByteBuffer, encoding: String, limit: Int) -> Result<ByteBuffer, APIError> {
        var body = body
        // Codings apply in order, so they are undone last first.
        for coding in encoding.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).reversed() {
            let algorithm: CompressionAlgorithm
            switch coding {
            case "identity", "": continue
            case "gzip", "x-gzip": algorithm = .gzip()
            // HTTP's deflate is the zlib format (RFC 9110 8.4.1.2), not raw deflate.
            case "deflate": algorithm = .zlib()
            default:
                return .failure(
                    APIError(415, "UNSUPPORTED_MEDIA_TYPE", "Content-Encoding \(coding) is not supported (use gzip or deflate)"))
            }
            let tooLarge = APIError(413, "REQUEST_TOO_LARGE", "Request body exceeds \(limit) bytes once decompressed")
            do {
                // `maxSize` bounds what is allocated, give or take the allocator's rounding:
                // the size is checked again after.
                body = try body.decompress(with: algorithm, maxSize: limit)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                return .failure(tooLarge)
            } catch {
                return .failure(APIError(400, "JSON_PARSER_ERROR", "The request body is not valid \(coding) data"))
            }
            guard body.readableBytes <= limit else { return .failure(tooLarge) }
        }
        return .success(body)
    }
}
