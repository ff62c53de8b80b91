import FastJSON

/// An HTTP request as the API layer sees it: decoded path segments, query parameters, headers.
public struct APIRequest: Sendable {
    /// The HTTP method, upper-cased.
    public var method: String
    /// Path segments (`services`, `data`, `v66.0`, …), split on `/` first and percent-decoded after, so an
    /// encoded `%2F` stays inside its segment. Empty segments (trailing `/`) are dropped.
    public var segments: [String]
    /// Query parameters in order; `+` is a space.
    public var query: [(String, String)]
    /// Header names lower-cased.
    public var headers: [String: String]
    /// The body as received.
    public var body: [UInt8]
    /// The body as it arrives, for the requests LocalForce reads a piece at a time
    /// (a Bulk upload, streamed by `LocalForceServer`); nil when ``body`` holds it.
    public var bodyStream: BodyStream?
    /// The client's connection, for a request that waits for events: `LocalForceServer` sets
    /// it; nil for a request handled in process.
    public var connection: ClientConnection?

    /// A request from its raw parts: `path` is split into segments, `query` (without `?`) into parameters.
    public init(method: String, path: String, query: String?, headers: [String: String], body: [UInt8]) {
        self.method = method.uppercased()
        self.segments = APIRequest.segments(of: path)
        self.query = APIRequest.parameters(query ?? "")
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The body a piece at a time: ``bodyStream`` when the server streams it, else ``body``.
    var bodyPieces: BodyStream { bodyStream ?? BodyStream(bytes: body) }

    /// The first value of a query parameter.
    public func parameter(_ name: String) -> String? {
        query.first { $0.0 == name }?.1
    }

    static func segments(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { percentDecode(String($0), plusIsSpace: false) }
    }

    static func parameters(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first else { return nil }
            return (
                percentDecode(String(name), plusIsSpace: true), parts.count > 1 ? percentDecode(String(parts[1]), plusIsSpace: true) : ""
            )
        }
    }

    static func percentDecode(_ text: String, plusIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2, let high = hex(iterator[iterator.startIndex]),
                let low = hex(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else if byte == UInt8(ascii: "+"), plusIsSpace {
                bytes.append(0x20)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// The body as a JSON object, or `JSON_PARSER_ERROR`.
    func jsonObject() throws(APIError) -> [String: JSONValue] {
        guard case .object(let members) = try json() else {
            throw APIError.jsonParser("Cannot deserialize instance of the request body: expected a JSON object")
        }
        return members
    }

    func json() throws(APIError) -> JSONValue {
        do {
            return try JSONValue(parsing: body)
        } catch {
            throw APIError.jsonParser("Unexpected character in request body: \(error)")
        }
    }
}
