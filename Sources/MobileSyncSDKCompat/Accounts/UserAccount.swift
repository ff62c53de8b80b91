public import Foundation
public import SalesforceREST

/// The signed-in user: who they are, where their org is, and how to get their token: from a
/// login (``init(identity:session:communityId:)``), or filled in by the app.
public struct UserAccount: Sendable {
    /// The user's id (`005…`).
    public var userId: String
    /// The org's id (`00D…`).
    public var orgId: String
    /// The org's instance.
    public var instanceURL: URL
    /// The Experience Cloud site, when the user signed in to one.
    public var communityId: String?
    /// Gives the user's access token, and a new one after a 401.
    public var tokenProvider: any AccessTokenProvider

    /// An account.
    public init(userId: String, orgId: String, instanceURL: URL, communityId: String? = nil, tokenProvider: any AccessTokenProvider) {
        self.userId = userId
        self.orgId = orgId
        self.instanceURL = instanceURL
        self.communityId = communityId
        self.tokenProvider = tokenProvider
    }

    /// The account of a login: the user and org of its identity, renewed by its session.
    ///
    /// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#userAccount -->
    /// ```swift
    /// let credentials = try await oauth.exchange(code: code, for: login)
    /// let account = UserAccount(identity: try await oauth.userIdentity(for: credentials),
    ///                           session: OAuthSession(credentials: credentials, client: oauth))
    /// try await MobileSyncSDKManager.shared.setCurrentUser(account)
    /// ```
    public init(identity: UserIdentity, session: OAuthSession, communityId: String? = nil) {
        self.init(
            userId: identity.userId, orgId: identity.organizationId, instanceURL: identity.instanceURL, communityId: communityId,
            tokenProvider: session)
    }

    /// The folder name of the user's stores: org, user and community, as the SDK separates them.
    var storeKey: String { [orgId, userId, communityId].compactMap { $0 }.joined(separator: "-") }

    /// A client for the user's instance.
    var client: RestClient { RestClient(instanceURL: instanceURL, tokenProvider: tokenProvider) }
}
