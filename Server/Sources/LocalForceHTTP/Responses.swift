import CompressNIO
import HTTPTypes
import Hummingbird
import LocalForce
import NIOCore

/// LocalForce's answers as Hummingbird responses.
enum Responses {
    /// Bodies smaller than this are sent as they are, whatever the client accepts.
    static let compressionThreshold = 1024

    /// The answer with its status, headers and body; gzip-compressed when the request accepts it
    /// (`Accept-Encoding: gzip`) and the body is worth it.
    static func response(_ response: APIResponse, acceptEncoding: String? = nil) -> Response {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        if let stream = response.bodyStream {
            // Sent as it is produced (chunked): Bulk results are never held whole.
            return Response(
                status: HTTPResponse.Status(code: response.status), headers: fields,
                body: ResponseBody { writer in
                    while let piece = try await stream.next() { try await writer.write(ByteBuffer(bytes: piece)) }
                    try await writer.finish(nil)
                })
        }
        var body = ByteBuffer(bytes: response.body)
        if response.body.count >= compressionThreshold, fields[.contentEncoding] == nil {
            // Whether it is compressed depends on the request's Accept-Encoding: caches must know.
            fields[.vary] = "Accept-Encoding"
            if accepts("gzip", acceptEncoding), let compressed = try? body.compress(with: .gzip()) {
                body = compressed
                fields[.contentEncoding] = "gzip"
            }
        }
        return Response(status: HTTPResponse.Status(code: response.status), headers: fields, body: ResponseBody(byteBuffer: body))
    }

    /// An answer after which the connection is closed (the body was not read, or not all of it).
    static func closing(_ response: APIResponse) -> Response {
        var answer = self.response(response)
        answer.headers[.connection] = "close"
        return answer
    }

    /// Whether an `Accept-Encoding` value accepts `coding`: named without `q=0`, or, when it is
    /// not named, through `*` without `q=0`.
    static func accepts(_ coding: String, _ header: String?) -> Bool {
        guard let header else { return false }
        var wildcard: Bool?
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if parts.first == coding { return weight > 0 }
            if parts.first == "*" { wildcard = weight > 0 }
        }
        return wildcard ?? false
    }

    private struct DroppedConnection: Error {}

    /// A response whose body fails midway: the server closes the connection, the client sees it lost.
    static func droppedConnection() -> Response {
        var fields = HTTPFields()
        fields[.contentLength] = "4096"
        fields[.contentType] = APIResponse.contentType
        return Response(
            status: .ok, headers: fields,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "{"))
                throw DroppedConnection()
            })
    }
}
