import FastJSON

/// An OAuth error as Salesforce's token endpoints write it:
/// `400 {"error": "invalid_grant", "error_description": "authentication failure"}`.
struct OAuthError: Error {
    var error: String
    var description: String
    var status = 400

    init(_ error: String, _ description: String, status: Int = 400) {
        self.error = error
        self.description = description
        self.status = status
    }

    static func invalidGrant(_ description: String) -> OAuthError { OAuthError("invalid_grant", description) }
    static func invalidRequest(_ description: String) -> OAuthError { OAuthError("invalid_request", description) }

    /// Token answers are never cached (RFC 6749 §5.1).
    static let noStore = ["Cache-Control": "no-store", "Pragma": "no-cache"]

    var response: APIResponse {
        .json(["error": .string(error), "error_description": .string(description)], status: status, headers: Self.noStore)
    }
}
