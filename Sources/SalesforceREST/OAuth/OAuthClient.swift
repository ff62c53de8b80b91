import Crypto
import CryptoExtras
import FastJSON
public import Foundation
import SalesforceWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A connected app talking to a login server: the OAuth 2.0 flows Salesforce offers, against
/// a real org or LocalForce.
///
/// <!-- snippet: Snippets/SalesforceReference.swift#oauthClient -->
/// ```swift
/// let oauth = OAuthClient(loginURL: URL(string: "https://login.salesforce.com")!, clientId: "3MVG9…",
///                         redirectURI: "http://127.0.0.1:1717/OauthRedirect")
/// let login = try oauth.authorizationRequest()       // open login.url in a browser
/// let code = try login.code(fromCallbackQuery: query) // the redirect's query
/// let credentials = try await oauth.exchange(code: code, for: login)
/// let client = await RestClient(session: OAuthSession(credentials: credentials, client: oauth))
/// ```
///
/// Every call returns ``OAuthCredentials`` or throws ``RestError/oauth(error:description:)``
/// with the server's own error (`invalid_grant`, `authentication failure`), or
/// ``RestError/network(_:)``.
public struct OAuthClient: Sendable {
    /// The login server: `https://login.salesforce.com`, `https://test.salesforce.com`, a My
    /// Domain, or a LocalForce address.
    public var loginURL: URL
    /// The connected app's consumer key.
    public var clientId: String
    /// The consumer secret (confidential apps; client credentials).
    public var clientSecret: String?
    /// The callback URL of the web-server flow.
    public var redirectURI: String?
    let transport: any HTTPTransport

    /// A client of `loginURL` as the app `clientId`.
    public init(
        loginURL: URL, clientId: String, clientSecret: String? = nil, redirectURI: String? = nil,
        transport: any HTTPTransport = URLSessionTransport()
    ) {
        self.loginURL = loginURL
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.transport = transport
    }

    /// A client for the app and login server of stored credentials (to refresh or revoke them).
    public init(for credentials: OAuthCredentials, clientSecret: String? = nil, transport: any HTTPTransport = URLSessionTransport()) {
        self.init(loginURL: credentials.loginURL, clientId: credentials.clientId, clientSecret: clientSecret, transport: transport)
    }

    /// Starts the web-server flow with PKCE: open the request's `url` in a browser, then give
    /// the code of the callback to ``exchange(code:for:)``.
    ///
    /// - Throws: ``RestError/invalidResponse(_:)`` without a ``redirectURI``.
    public func authorizationRequest(scopes: [String] = ["api", "refresh_token"]) throws(RestError) -> AuthorizationRequest {
        guard let redirectURI else { throw RestError.invalidResponse("the web-server flow needs a redirect URI") }
        return try AuthorizationRequest(loginURL: loginURL, clientId: clientId, redirectURI: redirectURI, scopes: scopes)
    }

    /// Trades an authorization code (and the request's code verifier) for tokens.
    public func exchange(code: String, for request: AuthorizationRequest) async throws -> OAuthCredentials {
        try await grant([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI),
            ("code_verifier", request.codeVerifier),
        ])
    }

    /// A new access token for credentials that hold a refresh token. The refresh token is kept
    /// (or replaced, when the server rotates it).
    ///
    /// - Throws: ``RestError/sessionExpired(_:)`` when the server refuses the refresh token
    ///   (revoked or expired); ``RestError/invalidResponse(_:)`` when there is none.
    public func refresh(_ credentials: OAuthCredentials) async throws -> OAuthCredentials {
        guard let refreshToken = credentials.refreshToken else {
            throw RestError.sessionExpired("the session has no refresh token: log in again")
        }
        do {
            var renewed = try await grant([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
            renewed.refreshToken = renewed.refreshToken ?? refreshToken
            return renewed
        } catch RestError.oauth(let error, let description) where error == "invalid_grant" {
            throw RestError.sessionExpired("\(description) (\(error))")
        }
    }

    /// The JWT bearer flow (server-to-server): an assertion signed RS256 with the app's private
    /// key, for the user `username`, valid three minutes.
    ///
    /// - Parameters:
    ///   - username: the user the session acts as (the assertion's `sub`).
    ///   - privateKeyPEM: the app's RSA private key (2048 bits or more), PEM (PKCS#1 or #8).
    ///   - audience: the `aud` claim. By default what Salesforce expects for the login server:
    ///     `https://test.salesforce.com` for `test.salesforce.com` and sandbox My Domains,
    ///     `https://login.salesforce.com` for other Salesforce hosts, and the login URL itself
    ///     for anything else (LocalForce). An Experience Cloud site passes its URL.
    public func jwtBearer(username: String, privateKeyPEM: String, audience: String? = nil) async throws -> OAuthCredentials {
        let assertion = try Self.assertion(
            issuer: clientId, subject: username, audience: audience ?? Self.defaultAudience(loginURL), privateKeyPEM: privateKeyPEM)
        return try await grant(
            [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion)], sendsClient: false)
    }

    /// The client credentials flow: the app acts as its run-as user. Needs ``clientSecret``.
    public func clientCredentials() async throws -> OAuthCredentials {
        try await grant([("grant_type", "client_credentials")])
    }

    /// The username-password flow (legacy; for scripts against test orgs and LocalForce).
    public func password(username: String, password: String) async throws -> OAuthCredentials {
        try await grant([("grant_type", "password"), ("username", username), ("password", password)])
    }

    /// Revokes a token: a refresh token ends the session (and its access tokens), an access
    /// token only itself.
    public func revoke(_ token: String) async throws {
        let (status, _, body) = try await post("revoke", [("token", token)])
        guard status == 200 else { throw Self.error(status: status, body: body) }
    }

    /// Who the credentials belong to: `GET` their identity URL (or `/services/oauth2/userinfo`
    /// on the instance when they have none).
    public func userIdentity(for credentials: OAuthCredentials) async throws -> UserIdentity {
        let url = credentials.identityURL ?? credentials.instanceURL.appendingPathComponent("services/oauth2/userinfo")
        var request = URLRequest(url: url)
        request.setValue("Bearer \(credentials.accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (status, _, body) = try await send(request)
        if status == 401 || status == 403 { throw RestError.sessionExpired("the identity service rejected the access token") }
        guard status == 200, case .object(let info)? = try? JSONValue(parsing: body) else { throw Self.error(status: status, body: body) }
        let text = { (keys: [String]) -> String in keys.lazy.compactMap { info[$0]?.stringValue }.first ?? "" }
        let userId = text(["user_id"])
        let organizationId = text(["organization_id"])
        guard !userId.isEmpty, !organizationId.isEmpty else { throw RestError.invalidResponse("the identity answer has no user or org id") }
        return UserIdentity(
            userId: userId, organizationId: organizationId, username: text(["username", "preferred_username"]),
            displayName: text(["display_name", "name"]), email: text(["email"]), instanceURL: credentials.instanceURL)
    }

    // MARK: - The token endpoint

    private func grant(_ parameters: [(String, String)], sendsClient: Bool = true) async throws -> OAuthCredentials {
        var form = parameters
        if sendsClient {
            form.append(("client_id", clientId))
            if let clientSecret { form.append(("client_secret", clientSecret)) }
        }
        let (status, _, body) = try await post("token", form)
        guard status == 200 else { throw Self.error(status: status, body: body) }
        guard case .object(let answer)? = try? JSONValue(parsing: body), let access = answer["access_token"]?.stringValue,
            let instance = answer["instance_url"]?.stringValue.flatMap(URL.init(string:))
        else { throw RestError.invalidResponse("the token answer has no access_token or instance_url") }
        return OAuthCredentials(
            accessToken: access, refreshToken: answer["refresh_token"]?.stringValue, instanceURL: instance,
            identityURL: answer["id"]?.stringValue.flatMap(URL.init(string:)), scope: answer["scope"]?.stringValue,
            issuedAt: answer["issued_at"]?.stringValue.flatMap { Int64($0) }, loginURL: loginURL, clientId: clientId)
    }

    private func post(_ endpoint: String, _ form: [(String, String)]) async throws -> (Int, [String: String], [UInt8]) {
        guard var components = URLComponents(url: loginURL, resolvingAgainstBaseURL: false) else {
            throw RestError.invalidResponse("bad login URL \(loginURL)")
        }
        components.path = Self.endpointPath(loginURL, endpoint)
        components.query = nil
        guard let url = components.url else { throw RestError.invalidResponse("bad login URL \(loginURL)") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(form.map { RestClient.formEncode($0.0) + "=" + RestClient.formEncode($0.1) }.joined(separator: "&").utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        do {
            return try await transport.send(request)
        } catch let error as RestError {
            throw error
        } catch {
            throw RestError.network(error.localizedDescription)
        }
    }

    /// The JWT audience Salesforce expects for a login server (see ``jwtBearer(username:privateKeyPEM:audience:)``).
    static func defaultAudience(_ loginURL: URL) -> String {
        let host = loginURL.host?.lowercased() ?? ""
        let isSalesforce = host == "salesforce.com" || host.hasSuffix(".salesforce.com") || host.hasSuffix(".force.com")
        guard isSalesforce else { return trimmed(loginURL.absoluteString) }
        if host == "test.salesforce.com" || host.contains(".sandbox.") { return "https://test.salesforce.com" }
        return "https://login.salesforce.com"
    }

    /// `/services/oauth2/<endpoint>` under the login URL's path.
    static func endpointPath(_ loginURL: URL, _ endpoint: String) -> String {
        trimmed(loginURL.path) + "/services/oauth2/" + endpoint
    }

    private static func trimmed(_ text: String) -> String {
        var text = text
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The OAuth error of an answer (`{"error", "error_description"}`), or the HTTP status.
    private static func error(status: Int, body: [UInt8]) -> RestError {
        if case .object(let answer)? = try? JSONValue(parsing: body), let error = answer["error"]?.stringValue {
            return .oauth(error: error, description: answer["error_description"]?.stringValue ?? "")
        }
        return .http(status: status, errors: [], body: body)
    }

    /// A JWT bearer assertion: `{"alg":"RS256"}`, the claims, RSASSA-PKCS1-v1_5 over SHA-256.
    static func assertion(issuer: String, subject: String, audience: String, privateKeyPEM: String) throws -> String {
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw RestError.oauth(error: "invalid_key", description: "the private key is not a PEM RSA key of 2048 bits or more")
        }
        let expires = Int64(Date().timeIntervalSince1970) + 180
        let header = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8))
        let claims: JSONValue = ["iss": .string(issuer), "sub": .string(subject), "aud": .string(audience), "exp": .int(expires)]
        let signed = header + "." + Base64URL.encode(claims.jsonBytes)
        let signature = try key.signature(for: SHA256.hash(data: Array(signed.utf8)), padding: .insecurePKCS1v1_5)
        return signed + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
