import Hummingbird
import LocalForce
import NIOCore

/// The body of a request LocalForce reads as it arrives (a Bulk upload): handed over as a
/// ``BodyStream`` instead of being read whole first, so an upload of any size holds one piece
/// at a time. What it may not do is checked here:
/// - a declared length above ``LocalForce/bulk``'s upload limit is refused (413) before any
///   byte is read (the handler counts what arrives against the same limit);
/// - a compressed body is refused (415): uploads are plain CSV;
/// - a client that stalls is cut off by the connection's idle timeout (a minute without a byte).
enum StreamedBody {
    static func handle(
        _ request: Request, context: LocalForceRequestContext, localForce: LocalForce,
        next: (Request, LocalForceRequestContext) async throws -> Response
    ) async throws -> Response {
        let limit = localForce.bulk.maximumUploadSize
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            return Responses.closing(.error(APIError(413, "REQUEST_TOO_LARGE", "An upload may hold at most \(limit) bytes of CSV")))
        }
        if let encoding = request.headers[.contentEncoding], encoding.lowercased() != "identity" {
            return Responses.closing(
                .error(APIError(415, "UNSUPPORTED_MEDIA_TYPE", "Content-Encoding \(encoding) is not supported for uploads: send plain CSV"))
            )
        }
        let pieces = Pieces(request.body.makeAsyncIterator())
        var context = context
        context.apiRequest.bodyStream = BodyStream { try await pieces.next() }
        var response = try await next(request, context)
        // An answer given before the whole body was read closes the connection.
        if !pieces.finished { response.headers[.connection] = "close" }
        return response
    }

    /// The body's pieces. Only the upload's handler pulls them, one call at a time (the
    /// contract of ``BodyStream``), so the iterator is never used concurrently.
    final class Pieces: @unchecked Sendable {
        private var iterator: RequestBody.AsyncIterator
        private(set) var finished = false

        init(_ iterator: RequestBody.AsyncIterator) {
            self.iterator = iterator
        }

        func next() async throws -> [UInt8]? {
            guard let buffer = try await iterator.next() else {
                finished = true
                return nil
            }
            return Array(buffer.readableBytesView)
        }
    }
}
