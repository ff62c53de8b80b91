import CompressNIO
import Hummingbird
import LocalForce
import NIOCore

/// Reads the body into the request, within LocalForce's limits:
/// - a declared length above the request's limit (``LocalForce/maximumBodySize`` with a token,
///   64 KiB for the OAuth endpoints open without one) is refused (413) before any byte is read,
///   and a body that grows past it while arriving is cut off there (413);
/// - a body that arrives slower than ``LocalForceServer/Limits/minimumBodyRate`` is refused (408)
///   and its connection closed (``BodyReader``): a stalled client holds nothing but its own
///   connection;
/// - a `gzip` or `deflate` body (`Content-Encoding`) is inflated, within the same limit;
/// - only then, a large body reserves the memory its parsing takes from the org's body budget,
///   by its actual size, so that concurrent large requests wait their turn instead of
///   exhausting memory.
struct BodyLimitMiddleware: RouterMiddleware {
    let localForce: LocalForce
    let limits: LocalForceServer.Limits

    func handle(
        _ request: Request, context: LocalForceRequestContext, next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        let limit = localForce.bodyLimit(for: context.apiRequest)
        let tooLarge = APIError(413, "REQUEST_TOO_LARGE", "Request body exceeds \(limit) bytes")
        // A declared length decides before any byte is read.
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > limit { return Responses.closing(.error(tooLarge)) }
        // No body at all (most GETs): nothing to read or watch.
        let hasBody = (declared ?? 0) > 0 || request.headers[.transferEncoding] != nil
        guard hasBody else { return try await next(request, context) }
        var body: ByteBuffer
        switch await BodyReader.read(request.body, limit: limit, limits: limits) {
        case .complete(let buffer): body = buffer
        case .tooLarge: return Responses.closing(.error(tooLarge))
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
            switch ContentCoding.decode(body, encoding: encoding, limit: limit) {
            case .success(let decoded): body = decoded
            case .failure(let error): return Responses.response(.error(error))
            }
        }
        var context = context
        let size = body.readableBytes
        context.apiRequest.body = body.readBytes(length: size) ?? []
        let (weight, overflow) = size.multipliedReportingOverflow(by: LocalForce.bodyMemoryFactor)
        let reservation = size > LocalForce.reservedBodyThreshold ? (overflow ? Int.max : weight) : 0
        guard reservation > 0 else { return try await next(request, context) }
        await localForce.bodyMemory.reserve(reservation)
        do {
            let answer = try await next(request, context)
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
            case "deflate": algorithm = .deflate()
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
