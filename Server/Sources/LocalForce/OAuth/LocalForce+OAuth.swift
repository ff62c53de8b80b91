import Crypto
import FastJSON
import Foundation
import SalesforceWire

extension LocalForce {
    /// The OAuth endpoints a request may reach without a token.
    static func isOpenOAuthEndpoint(_ segments: [String]) -> Bool {
        segments.count == 3 && segments[0] == "services" && segments[1] == "oauth2"
            && ["authorize", "token", "revoke"].contains(segments[2])
    }

    /// `/services/oauth2/…` and the identity URL `/id/{orgId}/{userId}`; `nil` for other paths.
    func oauthRoute(_ request: APIRequest) async throws -> APIResponse? {
        let segments = request.segments
        if segments.first == "id" {
            guard let user = authenticatedUser(request) else { throw APIError.invalidSession }
            return try await identity(request, caller: user)
        }
        guard segments.count == 3, segments[0] == "services", segments[1] == "oauth2" else { return nil }
        switch segments[2] {
        case "authorize": return try await authorize(request)
        case "token": return try await tokenEndpoint(request)
        case "revoke": return revoke(request)
        case "userinfo":
            guard let user = authenticatedUser(request) else { throw APIError.invalidSession }
            return try await userInfo(request, userId: user)
        default: throw APIError.notFound
        }
    }

    /// The parameters that hold a secret: refused in a URL (URLs end up in logs and proxies).
    static let secretParameters = ["client_secret", "password", "code", "code_verifier", "refresh_token", "assertion"]

    /// `POST /services/oauth2/token`: the five grants, with Salesforce's answers and errors.
    /// A secret in the URL (``secretParameters``) is refused.
    private func tokenEndpoint(_ request: APIRequest) async throws -> APIResponse {
        guard request.method == "POST" else { return OAuthError.invalidRequest("must use HTTP POST").response }
        if let secret = Self.secretParameters.first(where: { name in request.query.contains { $0.0 == name } }) {
            return OAuthError.invalidRequest("\(secret) must be sent in the request body, not in the URL").response
        }
        let form = OAuthForm(request)
        let now = currentTime()
        do throws(OAuthError) {
            switch form["grant_type"] {
            case "authorization_code": return try authorizationCodeGrant(form, request: request, now: now)
            case "refresh_token": return try refreshTokenGrant(form, request: request, now: now)
            case "password": return try passwordGrant(form, request: request, now: now)
            case "urn:ietf:params:oauth:grant-type:jwt-bearer": return try jwtBearerGrant(form, request: request, now: now)
            case "client_credentials": return try clientCredentialsGrant(form, request: request, now: now)
            default: return OAuthError("unsupported_grant_type", "grant type not supported").response
            }
        } catch {
            return error.response
        }
    }

    private func authorizationCodeGrant(_ form: OAuthForm, request: APIRequest, now: Int64) throws(OAuthError) -> APIResponse {
        let app = try clientApp(form, secretRequired: false)
        guard let code = form["code"], let pending = sessions.redeemCode(code, now: now), pending.grant.clientId == app.clientId else {
            throw OAuthError.invalidGrant("invalid authorization code")
        }
        guard form["redirect_uri"] == pending.redirectURI else { throw OAuthError.invalidGrant("redirect_uri must match configuration") }
        if let challenge = pending.codeChallenge {
            guard let verifier = form["code_verifier"], Self.isValidVerifier(verifier),
                Base64URL.encode(SHA256.hash(data: Array(verifier.utf8))) == challenge
            else { throw OAuthError.invalidGrant("invalid code verifier") }
        } else {
            // A verifier for a code issued without a challenge is a downgrade: refused. And
            // without PKCE the code alone is never enough: the app proves itself with its secret
            // (an app without one cannot get a code without PKCE at all).
            guard form["code_verifier"] == nil else { throw OAuthError.invalidGrant("invalid code verifier") }
            guard app.clientSecret != nil, form.clientSecret != nil else {
                throw OAuthError("invalid_client", "invalid client credentials")
            }
        }
        let scopes = pending.grant.scope.split(separator: " ")
        let withRefresh = scopes.isEmpty || scopes.contains("refresh_token") || scopes.contains("offline_access")
        guard let tokens = sessions.issue(pending.grant, withRefreshToken: withRefresh, exchanging: code, now: now) else {
            throw OAuthError.invalidGrant("invalid authorization code")
        }
        return tokenBody(access: tokens.access, refresh: tokens.refresh, grant: pending.grant, app: app, request: request, now: now)
    }

    /// An app with a secret must send it (Salesforce's default "Require Secret for Refresh
    /// Token Flow"); a public app (PKCE) has none to send.
    private func refreshTokenGrant(_ form: OAuthForm, request: APIRequest, now: Int64) throws(OAuthError) -> APIResponse {
        let app = try clientApp(form, secretRequired: false)
        if app.clientSecret != nil, form.clientSecret == nil { throw OAuthError("invalid_client", "invalid client credentials") }
        guard let refresh = form["refresh_token"], let (access, grant) = sessions.refresh(refresh, clientId: app.clientId, now: now)
        else { throw OAuthError.invalidGrant("expired access/refresh token") }
        return tokenBody(access: access, refresh: nil, grant: grant, app: app, request: request, now: now)
    }

    private func passwordGrant(_ form: OAuthForm, request: APIRequest, now: Int64) throws(OAuthError) -> APIResponse {
        let app = try clientApp(form, secretRequired: true)
        guard let username = form["username"], let password = form["password"],
            let user = checkedUser(username, password: password, client: app.clientId, now: now)
        else { throw OAuthError.invalidGrant("authentication failure") }
        let grant = OAuthGrant(userId: user, clientId: app.clientId, scope: "api")
        return tokenResponse(grant, app: app, request: request, withRefreshToken: false, grantType: "password", now: now)
    }

    private func jwtBearerGrant(_ form: OAuthForm, request: APIRequest, now: Int64) throws(OAuthError) -> APIResponse {
        guard let text = form["assertion"], let assertion = JWTAssertion(text) else { throw OAuthError.invalidGrant("invalid assertion") }
        guard let app = auth.app(clientId: assertion.issuer) else { throw OAuthError("invalid_client_id", "client identifier invalid") }
        guard let key = app.jwtKey, assertion.isSigned(by: key) else { throw OAuthError.invalidGrant("invalid assertion") }
        // The server's own URL as it was bound, never the request's Host header (which the
        // sender chooses, and would make any audience acceptable).
        let own = advertisedURL.map { [$0] } ?? []
        let accepted = Set((["https://login.salesforce.com", "https://test.salesforce.com"] + own + auth.audiences).map(Self.trimmedURL))
        guard assertion.audiences.contains(where: { accepted.contains(Self.trimmedURL($0)) }) else {
            throw OAuthError.invalidGrant("audience is invalid")
        }
        guard assertion.expiresAt * 1000 > now else { throw OAuthError.invalidGrant("expired authorization code") }
        // Salesforce takes assertions that expire within three minutes; a little more for clock
        // skew. A long-lived assertion would be a reusable password.
        guard assertion.expiresAt * 1000 <= now + Self.maximumAssertionLifetime else { throw OAuthError.invalidGrant("invalid assertion") }
        guard let user = authUserIds[assertion.subject.lowercased()] else {
            throw OAuthError.invalidGrant("user hasn't approved this consumer")
        }
        let grant = OAuthGrant(userId: user, clientId: app.clientId, scope: "api")
        return tokenResponse(grant, app: app, request: request, withRefreshToken: false, grantType: "jwt-bearer", now: now)
    }

    private func clientCredentialsGrant(_ form: OAuthForm, request: APIRequest, now: Int64) throws(OAuthError) -> APIResponse {
        let app = try clientApp(form, secretRequired: true)
        guard let runAs = app.runAs, let user = authUserIds[runAs.lowercased()] else {
            throw OAuthError.invalidGrant("no client credentials user enabled")
        }
        let grant = OAuthGrant(userId: user, clientId: app.clientId, scope: "api")
        return tokenResponse(grant, app: app, request: request, withRefreshToken: false, grantType: "client_credentials", now: now)
    }

    /// The app the form (or its Basic authorization) names; its secret must match when given,
    /// and be given when `secretRequired`.
    private func clientApp(_ form: OAuthForm, secretRequired: Bool) throws(OAuthError) -> AuthConfiguration.ConnectedApp {
        guard let clientId = form.clientId, let app = auth.app(clientId: clientId) else {
            throw OAuthError("invalid_client_id", "client identifier invalid")
        }
        if let presented = form.clientSecret {
            guard let secret = app.clientSecret, constantTimeEquals(presented, secret) else {
                throw OAuthError("invalid_client", "invalid client credentials")
            }
        } else if secretRequired {
            throw OAuthError("invalid_client", "invalid client credentials")
        }
        return app
    }

    /// The user id when the password is right and neither the user nor the app `client` is
    /// locked out by failed logins (``LoginThrottle``); a failure is counted against both.
    func checkedUser(_ username: String, password: String, client: String, now: Int64) -> String? {
        let user = auth.user(named: username)
        let userId = user.flatMap { authUserIds[$0.username.lowercased()] }
        // An unknown name is compared too (with a password no one has), so that it takes as
        // long as a known one.
        let expected = userId == nil ? nil : user?.password
        let accepted = logins.attempt(user: userId, client: client, now: now) {
            constantTimeEquals(password, expected ?? Self.noPassword) && expected != nil
        }
        return accepted ? userId : nil
    }

    /// What an unknown name's password is compared with.
    private static let noPassword = String(repeating: "\u{0}", count: 32)

    private func tokenResponse(
        _ grant: OAuthGrant, app: AuthConfiguration.ConnectedApp, request: APIRequest, withRefreshToken: Bool, grantType: String,
        now: Int64
    ) -> APIResponse {
        let (access, refresh) = sessions.issue(grant, withRefreshToken: withRefreshToken, grantType: grantType, now: now)
        return tokenBody(access: access, refresh: refresh, grant: grant, app: app, request: request, now: now)
    }

    /// Salesforce's token answer: the tokens, the instance and identity URLs, and `signature`
    /// (HMAC-SHA256 of the identity URL and `issued_at`, keyed with the consumer secret).
    private func tokenBody(
        access: String, refresh: String?, grant: OAuthGrant, app: AuthConfiguration.ConnectedApp, request: APIRequest, now: Int64
    ) -> APIResponse {
        let instance = instanceURL(of: request)
        let identityURL = "\(instance)/id/\(Self.organizationId)/\(grant.userId)"
        var body: [String: JSONValue] = [
            "access_token": .string(access), "instance_url": .string(instance), "id": .string(identityURL), "token_type": "Bearer",
            "issued_at": .string(String(now)), "scope": .string(grant.scope.isEmpty ? "api refresh_token" : grant.scope),
        ]
        if let refresh { body["refresh_token"] = .string(refresh) }
        if let secret = app.clientSecret {
            let mac = HMAC<SHA256>.authenticationCode(
                for: Array((identityURL + String(now)).utf8), using: SymmetricKey(data: Array(secret.utf8)))
            body["signature"] = .string(Data(mac).base64EncodedString())
        }
        return .json(.object(body), headers: OAuthError.noStore)
    }

    /// `POST /services/oauth2/revoke` (or GET) with `token=`: an access token, or a refresh
    /// token and the access tokens issued from it.
    private func revoke(_ request: APIRequest) -> APIResponse {
        guard request.method == "POST" || request.method == "GET" else { return OAuthError.invalidRequest("must use HTTP POST").response }
        guard let token = OAuthForm(request)["token"], sessions.revoke(token) else {
            return OAuthError("unsupported_token_type", "this token type is not supported").response
        }
        return APIResponse(status: 200, headers: OAuthError.noStore)
    }

    /// The URL clients reach this server by: its scheme and the request's `Host`.
    func instanceURL(of request: APIRequest) -> String {
        let host = request.headers["host"].flatMap { Self.isPlausibleHost($0) ? $0 : nil } ?? "localhost"
        // Served over TLS, the URLs LocalForce hands out say so.
        let scheme = advertisedURL?.hasPrefix("https://") == true ? "https" : "http"
        return "\(scheme)://\(host)"
    }

    private static func isPlausibleHost(_ host: String) -> Bool {
        !host.isEmpty && host.count <= 255
            && host.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789.-:[]".unicodeScalars.contains($0))
            }
    }

    /// How far in the future a JWT assertion's `exp` may be (ms): Salesforce's three minutes,
    /// plus two for clock skew.
    static let maximumAssertionLifetime: Int64 = 300_000

    private static func trimmedURL(_ text: String) -> String {
        var text = text
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// PKCE's code verifier (RFC 7636 §4.1): 43 to 128 unreserved characters.
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            }
    }

    /// How long an access token issued by the OAuth endpoints is valid.
    public var accessTokenLifetime: Duration { .milliseconds(sessions.accessLifetime) }

    /// Makes every access token the OAuth endpoints issued expire now; refresh tokens stay
    /// valid. For tests of session expiry that must not wait for ``accessTokenLifetime``.
    public func expireAccessTokens() {
        sessions.expireAccessTokens()
    }

    /// How many access tokens a grant type has issued since the server started:
    /// `authorization_code`, `refresh_token`, `password`, `jwt-bearer`, `client_credentials`.
    public func issuedTokenCount(grantType: String) -> Int {
        sessions.grantsIssued(grantType)
    }
}
