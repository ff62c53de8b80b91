/// Supplies the bearer token, and a new one when the server rejects it (401).
public protocol AccessTokenProvider: Sendable {
    /// The current token.
    func accessToken() async throws -> String
    /// A fresh token after a 401 (e.g. an OAuth refresh). Throw if none can be had.
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

    /// Always throws ``RestError/authentication(_:)``: a static token cannot be refreshed.
    public func refreshedAccessToken(rejected: String) async throws -> String {
        throw RestError.authentication("Session expired or invalid, and the token is static")
    }
}
