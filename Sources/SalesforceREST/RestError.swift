public import SalesforceWire

/// Why a REST call failed.
public enum RestError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error status and (usually) Salesforce error items.
    case http(status: Int, errors: [SalesforceErrorItem], body: [UInt8])
    /// No answer: connection refused or lost, timeout. The request may or may not have been applied.
    case network(String)
    /// An answer that is not what the API promises.
    case invalidResponse(String)
    /// The session is over: the server rejected the access token and no new one could be had
    /// (the refresh token was revoked or expired, the token is static, or the refreshed token
    /// was rejected too). Log in again.
    case sessionExpired(String)
    /// An OAuth endpoint refused a grant: Salesforce's `error` (`invalid_grant`,
    /// `invalid_client_id`, …) and `error_description` (`authentication failure`, …).
    case oauth(error: String, description: String)

    /// The error in words: the status and Salesforce's error items (or the start of the body), or the failure.
    public var description: String {
        switch self {
        case .http(let status, let errors, let body):
            let detail =
                errors.isEmpty ? String(decoding: body.prefix(500), as: UTF8.self) : errors.map(\.description).joined(separator: "; ")
            return "HTTP \(status): \(detail)"
        case .network(let message): return "Network error: \(message)"
        case .invalidResponse(let message): return "Invalid response: \(message)"
        case .sessionExpired(let message): return "Session expired: \(message)"
        case .oauth(let error, let description): return "OAuth error \(error): \(description)"
        }
    }

    /// The HTTP status, if the server answered.
    public var status: Int? {
        if case .http(let status, _, _) = self { return status }
        return nil
    }

    /// The first error code, if any.
    public var errorCode: String? {
        if case .http(_, let errors, _) = self { return errors.first?.code }
        return nil
    }

    /// Whether trying again may succeed: no answer, 5xx, or request-limit throttling.
    public var isTransient: Bool {
        switch self {
        case .network: true
        case .http(let status, let errors, _): status >= 500 || errors.first?.code == "REQUEST_LIMIT_EXCEEDED"
        default: false
        }
    }

    static func from(_ response: RestResponse) -> RestError {
        let items = ((try? response.json())?.arrayValue ?? []).compactMap(SalesforceErrorItem.init)
        return .http(status: response.status, errors: items, body: response.body)
    }
}
