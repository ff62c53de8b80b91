/// An error as the REST API reports it: an HTTP status, an `errorCode` and a message.
///
/// On a resource it is written as `[{"message":…,"errorCode":…,"fields":[…]}]`; inside save
/// results as `{"statusCode":…,"message":…,"fields":[…]}`.
public struct APIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the answer.
    public var status: Int
    /// Salesforce's error code (`NOT_FOUND`, `MALFORMED_QUERY`, …).
    public var errorCode: String
    /// The message, at most ``maximumMessageLength`` characters.
    public var message: String
    /// The fields at fault, when the error names some.
    public var fields: [String]?

    /// The longest message an error carries; longer ones are cut (an error never echoes a whole
    /// oversized value back).
    public static let maximumMessageLength = 2000

    /// An error; the message is cut to ``maximumMessageLength`` and at most 100 fields are kept.
    public init(_ status: Int, _ errorCode: String, _ message: String, fields: [String]? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.message = message.count > Self.maximumMessageLength ? String(message.prefix(Self.maximumMessageLength)) + "…" : message
        self.fields = fields.map { Array($0.prefix(100).map(\.clippedForMessage)) }
    }

    /// `status errorCode: message`.
    public var description: String { "\(status) \(errorCode): \(message)" }

    static let notFound = APIError(404, "NOT_FOUND", "The requested resource does not exist")
    static let invalidSession = APIError(401, "INVALID_SESSION_ID", "Session expired or invalid")
    static let entityIsDeleted = APIError(404, "ENTITY_IS_DELETED", "entity is deleted", fields: [])

    static func malformedId(_ id: String, field: String = "Id", label: String = "Record ID") -> APIError {
        APIError(400, "MALFORMED_ID", "\(label): id value of incorrect type: \(id)", fields: [field])
    }

    static func jsonParser(_ message: String, fields: [String]? = nil) -> APIError {
        APIError(400, "JSON_PARSER_ERROR", message, fields: fields)
    }
}

extension String {
    /// The text as an error message quotes it: at most 255 characters, then `…`.
    var clippedForMessage: String {
        count > 255 ? String(prefix(255)) + "…" : self
    }
}
