public import Foundation

/// The user an access token belongs to, from the identity service (`GET` the identity URL) or
/// `/services/oauth2/userinfo`.
public struct UserIdentity: Sendable, Equatable {
    /// The user's id (`005…`).
    public var userId: String
    /// The org's id (`00D…`).
    public var organizationId: String
    /// The login name.
    public var username: String
    /// The name to show.
    public var displayName: String
    /// The user's email.
    public var email: String
    /// The org's instance.
    public var instanceURL: URL

    /// An identity; see the properties.
    public init(userId: String, organizationId: String, username: String, displayName: String, email: String, instanceURL: URL) {
        self.userId = userId
        self.organizationId = organizationId
        self.username = username
        self.displayName = displayName
        self.email = email
        self.instanceURL = instanceURL
    }
}
