import Foundation
import SalesforceWire

extension LocalForce {
    /// The authorization request's parameters, carried from the GET through the login form.
    private static let requestFields = [
        "response_type", "client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method",
    ]

    /// `GET /services/oauth2/authorize`: the login page of the web-server flow; `POST`: the
    /// login form's answer (then the consent page) or the consent's answer (then the redirect
    /// to the app with a code, or with `error=access_denied`).
    ///
    /// An unknown app or a redirect URI the app does not list gets an error page, never a
    /// redirect: only a trusted URI receives codes or errors.
    func authorize(_ request: APIRequest) async throws -> APIResponse {
        guard request.method == "GET" || request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are GET,POST")
        }
        let form = OAuthForm(request)
        let now = currentTime()
        if request.method == "POST", let ticket = form["ticket"] {
            return consentAnswer(ticket: ticket, allowed: form["decision"] == "allow", now: now)
        }
        let app: AuthConfiguration.ConnectedApp
        let redirectURI: String
        switch checkedRequest(form) {
        case .failure(let error): return error.page
        case .success(let checked): (app, redirectURI) = checked
        }
        guard form["response_type"] == "code" else {
            return Self.redirect(
                to: redirectURI,
                ["error": "unsupported_response_type", "error_description": "response type not supported", "state": form["state"]])
        }
        let challenge = form["code_challenge"]
        // An app without a secret can prove itself only with PKCE.
        if challenge == nil && app.clientSecret == nil {
            return Self.redirect(
                to: redirectURI,
                ["error": "invalid_request", "error_description": "missing required code challenge", "state": form["state"]])
        }
        if let challenge {
            // S256 only, unpadded: the form a verifier's hash is compared in.
            guard (form["code_challenge_method"] ?? "S256") == "S256", challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32
            else {
                return Self.redirect(
                    to: redirectURI, ["error": "invalid_request", "error_description": "invalid code challenge", "state": form["state"]])
            }
        }
        let fields = Self.requestFields.compactMap { name in form[name].map { (name, $0) } }
        guard request.method == "POST" else { return Self.html(AuthorizePage.login(appName: app.name, fields: fields)) }
        // The login form posts its password in the body; one in the URL would end up in logs.
        if request.query.contains(where: { $0.0 == "password" }) {
            return Self.html(
                AuthorizePage.error("invalid_request", "the password must be sent in the form body, not in the URL"), status: 400)
        }
        let username = form["username"] ?? ""
        guard let userId = checkedUser(username, password: form["password"] ?? "", client: app.clientId, now: now) else {
            return Self.html(
                AuthorizePage.login(
                    appName: app.name, fields: fields, username: username,
                    error: "Please check your username and password. If you still can't log in, contact your Salesforce administrator."))
        }
        let scope = form["scope"] ?? ""
        let pending = PendingAuthorization(
            grant: OAuthGrant(userId: userId, clientId: app.clientId, scope: scope), redirectURI: redirectURI, state: form["state"],
            codeChallenge: challenge)
        let ticket = sessions.issueTicket(for: pending, now: now)
        let scopes = scope.split(separator: " ").map(String.init)
        return Self.html(
            AuthorizePage.consent(
                appName: app.name, username: auth.user(named: username)?.username ?? username,
                scopes: scopes.isEmpty ? ["api", "refresh_token"] : scopes, ticket: ticket))
    }

    /// The app and redirect URI of a request, or the error page to show instead.
    private func checkedRequest(_ form: OAuthForm) -> Result<(AuthConfiguration.ConnectedApp, String), PageError> {
        guard let clientId = form["client_id"], let app = auth.app(clientId: clientId) else {
            return .failure(PageError(Self.html(AuthorizePage.error("invalid_client_id", "client identifier invalid"), status: 400)))
        }
        guard let redirectURI = form["redirect_uri"] ?? (app.redirectURIs.count == 1 ? app.redirectURIs.first : nil),
            app.redirectURIs.contains(where: { Self.redirectMatches(registered: $0, presented: redirectURI) })
        else {
            return .failure(
                PageError(Self.html(AuthorizePage.error("redirect_uri_mismatch", "redirect_uri must match configuration"), status: 400)))
        }
        return .success((app, redirectURI))
    }

    private func consentAnswer(ticket: String, allowed: Bool, now: Int64) -> APIResponse {
        guard let pending = sessions.redeemTicket(ticket, now: now) else {
            return Self.html(
                AuthorizePage.error("invalid_request", "the login expired or was already used: start again from the app"), status: 400)
        }
        guard allowed else {
            return Self.redirect(
                to: pending.redirectURI,
                ["error": "access_denied", "error_description": "end-user denied authorization", "state": pending.state])
        }
        let code = sessions.issueCode(for: pending, now: now)
        return Self.redirect(to: pending.redirectURI, ["code": code, "state": pending.state])
    }

    /// Exact match, except that a loopback redirect (`http://127.0.0.1`, `localhost`, `[::1]`)
    /// matches on any port (RFC 8252 §7.3: a native app listens on whatever port is free).
    static func redirectMatches(registered: String, presented: String) -> Bool {
        if registered == presented { return true }
        guard var a = URLComponents(string: registered), var b = URLComponents(string: presented), a.scheme == "http", b.scheme == "http",
            let host = a.host, ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host), host == b.host
        else { return false }
        a.port = nil
        b.port = nil
        return a == b
    }

    /// A 302 to the app, with the parameters (those that have a value) added to its query.
    private static func redirect(to uri: String, _ parameters: KeyValuePairs<String, String?>) -> APIResponse {
        var components = URLComponents(string: uri) ?? URLComponents()
        var items = components.queryItems ?? []
        for (name, value) in parameters { if let value { items.append(URLQueryItem(name: name, value: value)) } }
        components.queryItems = items
        // URLComponents leaves `+` alone in queries; form decoders read it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return APIResponse(status: 302, headers: ["Location": components.string ?? uri, "Cache-Control": "no-store"])
    }

    private static func html(_ text: String, status: Int = 200) -> APIResponse {
        APIResponse(status: status, headers: AuthorizePage.headers, body: Array(text.utf8))
    }
}

/// An error page, as the failure of a check.
private struct PageError: Error {
    let page: APIResponse
    init(_ page: APIResponse) { self.page = page }
}
