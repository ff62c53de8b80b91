public import FastJSON

/// One entry of a composite response's `compositeResponse`: the outcome of the subrequest
/// with the same ``referenceId``.
public struct CompositeSubresponse: Sendable, Hashable {
    /// The subrequest's reference id.
    public var referenceId: String
    /// The HTTP status the subrequest got.
    public var httpStatusCode: Int
    /// Its response body (`null` for none, a list of error items for a failure).
    public var body: JSONValue
    /// Its response headers (such as `Location`).
    public var httpHeaders: [String: String]

    /// A subresponse.
    public init(referenceId: String, httpStatusCode: Int, body: JSONValue = .null, httpHeaders: [String: String] = [:]) {
        self.referenceId = referenceId
        self.httpStatusCode = httpStatusCode
        self.body = body
        self.httpHeaders = httpHeaders
    }

    /// Reads one entry of `compositeResponse`.
    ///
    /// - Returns: `nil` when `referenceId` is missing or `httpStatusCode` is not a status
    ///   (100–599).
    public init?(json: JSONValue) {
        guard let referenceId = json["referenceId"]?.stringValue, let status = json["httpStatusCode"]?.int64Value,
            (100...599).contains(status)
        else { return nil }
        var headers: [String: String] = [:]
        for (name, value) in json["httpHeaders"]?.objectValue ?? [:] {
            if let text = value.stringValue { headers[name] = text }
        }
        self.init(referenceId: referenceId, httpStatusCode: Int(status), body: json["body"] ?? .null, httpHeaders: headers)
    }

    /// Whether the subrequest succeeded (a 2xx status).
    public var isSuccess: Bool { (200..<300).contains(httpStatusCode) }

    /// The error items of a failed subrequest (empty when the body holds none).
    public var errors: [SalesforceErrorItem] {
        (body.arrayValue ?? []).compactMap(SalesforceErrorItem.init)
    }

    /// The entry as a server writes it in `compositeResponse`.
    public var json: JSONValue {
        [
            "body": body, "httpHeaders": .object(httpHeaders.mapValues(JSONValue.string)),
            "httpStatusCode": .int(Int64(httpStatusCode)), "referenceId": .string(referenceId),
        ]
    }
}
