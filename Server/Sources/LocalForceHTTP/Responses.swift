import HTTPTypes
import Hummingbird
import LocalForce
import NIOCore

/// LocalForce's answers as Hummingbird responses.
enum Responses {
    /// The answer with its status, headers and body.
    static func response(_ response: APIResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
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
