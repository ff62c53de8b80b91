public import FastJSON

/// One subrequest of a composite request (`POST /services/data/vNN.N/composite`): what the
/// client sends in `compositeRequest` and the server reads back.
///
/// <!-- snippet: Snippets/SalesforceReference.swift#composite -->
/// ```swift
/// var update = CompositeSubrequest(referenceId: "r0", method: "PATCH", url: accountURL, body: ["Name": "Acme"])
/// update.unmodifiedSince = lastModified   // LEAVE_IF_CHANGED: 412 if changed on the server since
/// ```
public struct CompositeSubrequest: Sendable, Hashable {
    /// The name later subrequests use to refer to this one's result (`@{referenceId.id}`).
    public var referenceId: String
    /// `GET`, `POST`, `PATCH`, `PUT` or `DELETE`.
    public var method: String
    /// The resource, from `/services/data/…` on.
    public var url: String
    /// The request body, if any.
    public var body: JSONValue?
    /// Headers of the subrequest (such as `If-Unmodified-Since`).
    public var httpHeaders: [String: String]

    /// A subrequest.
    public init(referenceId: String, method: String, url: String, body: JSONValue? = nil, httpHeaders: [String: String] = [:]) {
        self.referenceId = referenceId
        self.method = method
        self.url = url
        self.body = body
        self.httpHeaders = httpHeaders
    }

    /// Reads one entry of `compositeRequest`. Header values that are not strings are left out;
    /// a `null` body is no body.
    ///
    /// - Returns: `nil` when `method`, `url` or `referenceId` is missing or not a string.
    public init?(json: JSONValue) {
        guard let method = json["method"]?.stringValue, let url = json["url"]?.stringValue,
            let referenceId = json["referenceId"]?.stringValue
        else { return nil }
        var headers: [String: String] = [:]
        for (name, value) in json["httpHeaders"]?.objectValue ?? [:] {
            if let text = value.stringValue { headers[name] = text }
        }
        // Spelled out: in `flatMap { $0.isNull ? nil : $0 }` the `nil` would be JSONValue.null.
        let body: JSONValue? = if let value = json["body"], !value.isNull { value } else { .none }
        self.init(referenceId: referenceId, method: method, url: url, body: body, httpHeaders: headers)
    }

    /// The `If-Unmodified-Since` precondition, in epoch milliseconds (sent as an HTTP date,
    /// whole seconds), or `nil` for none.
    public var unmodifiedSince: Int64? {
        get { httpHeaders["If-Unmodified-Since"].flatMap(HTTPDate.parse) }
        set { httpHeaders["If-Unmodified-Since"] = newValue.map(HTTPDate.format) }
    }

    /// The entry as sent in `compositeRequest`.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["referenceId": .string(referenceId), "method": .string(method), "url": .string(url)]
        if let body { object["body"] = body }
        if !httpHeaders.isEmpty { object["httpHeaders"] = .object(httpHeaders.mapValues(JSONValue.string)) }
        return .object(object)
    }
}
