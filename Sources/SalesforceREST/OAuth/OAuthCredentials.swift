public import Foundation

/// What a login yields: the tokens, where the org is, and how to renew the session.
///
/// `Codable`, for a ``CredentialStore``. Its description never shows a token.
public struct OAuthCredentials: Codable, Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The bearer token for API calls.
    public var accessToken: String
    /// The refresh token, when the grant issued one (the web-server flow does; JWT bearer,
    /// client credentials and password grants do not).
    public var refreshToken: String?
    /// The org's instance: where API calls go.
    public var instanceURL: URL
    /// The identity URL (`…/id/{orgId}/{userId}`).
    public var identityURL: URL?
    /// The scopes granted, space-separated.
    public var scope: String?
    /// When the token was issued, in epoch milliseconds, as the server said.
    public var issuedAt: Int64?
    /// The login server that issued the tokens (`https://login.salesforce.com`, a My Domain,
    /// or a LocalForce address): where refreshes and revocations go.
    public var loginURL: URL
    /// The connected app's consumer key.
    public var clientId: String

    /// Credentials; see the properties.
    public init(
        accessToken: String, refreshToken: String? = nil, instanceURL: URL, identityURL: URL? = nil, scope: String? = nil,
        issuedAt: Int64? = nil, loginURL: URL, clientId: String
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.instanceURL = instanceURL
        self.identityURL = identityURL
        self.scope = scope
        self.issuedAt = issuedAt
        self.loginURL = loginURL
        self.clientId = clientId
    }

    /// The org's id and the user's, read from the identity URL's last two segments.
    public var identityIds: (organizationId: String, userId: String)? {
        guard let identityURL else { return nil }
        let parts = identityURL.path.split(separator: "/")
        guard parts.count >= 3, parts[parts.count - 3] == "id" else { return nil }
        return (String(parts[parts.count - 2]), String(parts[parts.count - 1]))
    }

    /// What `dump` and debuggers show: the fields, with the tokens hidden.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": "<hidden>", "refreshToken": refreshToken == nil ? "nil" : "<hidden>", "instanceURL": instanceURL,
                "identityURL": identityURL as Any, "scope": scope as Any, "issuedAt": issuedAt as Any, "loginURL": loginURL,
                "clientId": clientId,
            ])
    }

    /// The instance, the identity URL and whether a refresh token is held; never a token.
    public var description: String {
        "OAuthCredentials(instance: \(instanceURL.absoluteString), identity: \(identityURL?.absoluteString ?? "none"), "
            + "refreshable: \(refreshToken != nil))"
    }
}
