import Foundation

/// A logged-in session as a ``RestClient``'s token provider: it renews the access token when
/// the server rejects it, once for all the requests in flight.
///
/// When several requests get a 401 together, the first starts the renewal and the others wait
/// for it; a request whose rejected token is already replaced just uses the new one. A renewal
/// the server refuses throws ``RestError/sessionExpired(_:)`` to every waiting request, so a
/// sync ends FAILED instead of looping; a transient failure (no answer, a 5xx from the token
/// endpoint) is thrown as it is, and the request's retry policy may try again.
///
/// <!-- snippet: Snippets/SalesforceReference.swift#oauthSession -->
/// ```swift
/// let session = OAuthSession(credentials: stored, client: OAuthClient(for: stored)) { renewed in
///     try? credentialStore.save(renewed, account: "default")
/// }
/// let client = await RestClient(session: session)
/// ```
public actor OAuthSession: AccessTokenProvider {
    /// How a session gets new credentials: a refresh-token grant, or the original grant again
    /// (JWT bearer and client credentials issue no refresh token).
    public typealias Renewal = @Sendable (OAuthCredentials) async throws -> OAuthCredentials

    /// The current credentials.
    public private(set) var credentials: OAuthCredentials
    /// How many renewals have succeeded.
    public private(set) var renewalCount = 0
    private let renew: Renewal
    private let onRenewal: @Sendable (OAuthCredentials) async -> Void
    private var renewal: Task<OAuthCredentials, any Error>?

    /// A session renewed by `renew`.
    ///
    /// - Parameters:
    ///   - credentials: the credentials of the login.
    ///   - renew: gets new credentials from the current ones (a refresh, or the grant again).
    ///   - onRenewal: called with every renewed credentials, one renewal at a time, before any
    ///     request uses them (store them: a rotated refresh token must not be lost).
    public init(
        credentials: OAuthCredentials, renew: @escaping Renewal,
        onRenewal: @escaping @Sendable (OAuthCredentials) async -> Void = { _ in }
    ) {
        self.credentials = credentials
        self.renew = renew
        self.onRenewal = onRenewal
    }

    /// A session renewed with its refresh token through `client`.
    public init(
        credentials: OAuthCredentials, client: OAuthClient, onRenewal: @escaping @Sendable (OAuthCredentials) async -> Void = { _ in }
    ) {
        self.init(credentials: credentials, renew: { try await client.refresh($0) }, onRenewal: onRenewal)
    }

    /// The current access token.
    public func accessToken() async throws -> String { credentials.accessToken }

    /// A token newer than `rejected`: the current one if a renewal already replaced it, else
    /// the result of the renewal in progress, or of a new one.
    public func refreshedAccessToken(rejected: String) async throws -> String {
        if credentials.accessToken != rejected { return credentials.accessToken }
        let task: Task<OAuthCredentials, any Error>
        if let renewal {
            task = renewal
        } else {
            let (renew, current, onRenewal) = (self.renew, credentials, self.onRenewal)
            // Not tied to the request that started it: a cancelled request must not cancel
            // the renewal the others wait for. The new credentials are handed to `onRenewal`
            // before the renewal counts as done, so saves never overlap or land out of order.
            task = Task {
                let renewed = try await renew(current)
                await onRenewal(renewed)
                return renewed
            }
            renewal = task
        }
        do {
            let renewed = try await task.value
            if renewal == task {
                renewal = nil
                credentials = renewed
                renewalCount += 1
            }
            return credentials.accessToken
        } catch {
            if renewal == task { renewal = nil }
            if let restError = error as? RestError {
                if case .sessionExpired = restError { throw restError }
                if restError.isTransient { throw restError }
            }
            throw RestError.sessionExpired("the session could not be renewed: \(error)")
        }
    }
}

extension RestClient {
    /// A client of the session's instance, its token renewed by the session.
    public convenience init(
        session: OAuthSession, apiVersion: String = "66.0", retryPolicy: RetryPolicy = RetryPolicy(),
        transport: any HTTPTransport = URLSessionTransport()
    ) async {
        self.init(
            instanceURL: await session.credentials.instanceURL, apiVersion: apiVersion, tokenProvider: session, retryPolicy: retryPolicy,
            transport: transport)
    }
}
