/// Supplies the bearer token, and a new one when the server rejects it (401).
public protocol AccessTokenProvider: Sendable {
    /// The current token.
    func accessToken() async throws -> String
    /// A fresh token after a 401 (e.g. an OAuth refresh). `rejected` is the token the server
    /// refused: when the current token is already another one (a concurrent request refreshed
    /// it), return that one rather than refreshing again. Throw ``RestError/sessionExpired(_:)``
    /// when no token can be had.
    func refreshedAccessToken(rejected: String) async throws -> String
}

/// A fixed token (LocalForce, scripts, tests): a 401 is final.
public struct StaticAccessToken: AccessTokenProvider {
    let token: String

    /// A provider that always answers `token`.
    public init(_ token: String) {
        self.token = token
    }

    /// The token given at creation.
    public func accessToken() async throws -> String { token }

    /// Always throws ``RestError/sessionExpired(_:)``: a static token cannot be refreshed.
    public func refreshedAccessToken(rejected: String) async throws -> String {
        throw RestError.sessionExpired("Session expired or invalid, and the token is static")
    }
}
