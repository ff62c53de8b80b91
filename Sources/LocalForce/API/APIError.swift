/// An error as the REST API reports it: an HTTP status, an `errorCode` and a message.
///
/// On a resource it is written as `[{"message":…,"errorCode":…,"fields":[…]}]`; inside save
/// results as `{"statusCode":…,"message":…,"fields":[…]}`.
public struct APIError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var errorCode: String
    public var message: String
    public var fields: [String]?

    public init(_ status: Int, _ errorCode: String, _ message: String, fields: [String]? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.fields = fields
    }

    public var description: String { "\(status) \(errorCode): \(message)" }

    static let notFound = APIError(404, "NOT_FOUND", "The requested resource does not exist")
    static let invalidSession = APIError(401, "INVALID_SESSION_ID", "Session expired or invalid")
    static let entityIsDeleted = APIError(404, "ENTITY_IS_DELETED", "entity is deleted", fields: [])

    static func malformedId(_ id: String, field: String = "Id", label: String = "Record ID") -> APIError {
        APIError(400, "MALFORMED_ID", "\(label): id value of incorrect type: \(id)", fields: [field])
    }

    static func jsonParser(_ message: String) -> APIError {
        APIError(400, "JSON_PARSER_ERROR", message)
    }
}
