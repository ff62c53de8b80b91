public import FastJSON

/// One error item of a Salesforce error response: `{"errorCode","message","fields"}` on a
/// resource, `{"statusCode","message","fields"}` in a save result.
public struct SalesforceErrorItem: Sendable, Hashable, CustomStringConvertible {
    /// The error code (`ENTITY_IS_DELETED`, `INVALID_FIELD`, …).
    public var code: String
    /// The human-readable message.
    public var message: String
    /// The fields the error is about (often empty).
    public var fields: [String]

    /// An error item.
    public init(code: String, message: String, fields: [String] = []) {
        self.code = code
        self.message = message
        self.fields = fields
    }

    /// Reads either shape (`errorCode` or `statusCode`).
    ///
    /// - Returns: `nil` when the JSON carries no code.
    public init?(_ json: JSONValue) {
        guard let code = (json["errorCode"] ?? json["statusCode"])?.stringValue else { return nil }
        self.code = code
        self.message = json["message"]?.stringValue ?? ""
        self.fields = json["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The item as a resource-level error (`{"errorCode","message","fields"}`); Mobile Sync
    /// stores this shape in `__last_error__`.
    public var json: JSONValue {
        ["errorCode": .string(code), "message": .string(message), "fields": .array(fields.map(JSONValue.string))]
    }

    /// The item as an error of a save result (`{"statusCode","message","fields"}`).
    public var saveResultJSON: JSONValue {
        ["statusCode": .string(code), "message": .string(message), "fields": .array(fields.map(JSONValue.string))]
    }

    /// `CODE: message`.
    public var description: String { "\(code): \(message)" }
}
