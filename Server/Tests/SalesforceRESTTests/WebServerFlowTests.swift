import FastJSON
import Foundation
import LocalForce
import SalesforceREST
import Testing

/// The web-server flow with PKCE, through LocalForce's authorize pages over HTTP, then
/// `OAuthClient` for the code exchange, the identity and the API.
@Suite struct WebServerFlowTests {
    /// The login form, then the consent page; returns the final answer (a redirect).
    static func logIn(
        _ org: OAuthOrg, _ login: AuthorizationRequest, username: String = OAuthOrg.ada.0, password: String = OAuthOrg.ada.1,
        decision: String = "allow"
    ) async throws -> OAuthOrg.Page {
        let pathAndQuery = login.url.path + "?" + (login.url.query ?? "")
        let loginPage = try await org.page(pathAndQuery)
        #expect(loginPage.status == 200)
        #expect(loginPage.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(loginPage.text.contains("id=\"username\"") && loginPage.text.contains("id=\"password\""))
        let fields = ["response_type", "client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method"]
        var form = fields.compactMap { name in loginPage.input(name).map { (name, Self.unescape($0)) } }
        form += [("username", username), ("password", password)]
        let consent = try await org.page("/services/oauth2/authorize", form: form)
        #expect(consent.status == 200)
        guard let ticket = consent.input("ticket") else { return consent }
        #expect(consent.text.contains("Allow Access?"))
        return try await org.page("/services/oauth2/authorize", form: [("ticket", ticket), ("decision", decision)])
    }

    /// RFC 7636's example challenge (S256 of its example verifier).
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(
                of: "&amp;", with: "&")
    }

    @Test func loginConsentCodeExchangeAndIdentity() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client()
        let login = try oauth.authorizationRequest()
        let redirect = try await Self.logIn(org, login)
        #expect(redirect.status == 302)
        #expect(redirect.headers["location"]?.hasPrefix(OAuthOrg.webRedirect + "?") == true)
        let code = try login.code(fromCallbackQuery: redirect.redirectQuery)
        let credentials = try await oauth.exchange(code: code, for: login)
        #expect(credentials.refreshToken != nil)
        #expect(credentials.instanceURL == org.baseURL)
        #expect(credentials.scope == "api refresh_token")

        let identity = try await oauth.userIdentity(for: credentials)
        #expect(identity.username == OAuthOrg.ada.0)
        #expect(identity.displayName == "Ada Lovelace")
        #expect(credentials.identityIds?.userId == identity.userId)
        #expect(identity.organizationId.hasPrefix("00D"))

        // The API works with the token, and acts as the logged-in user.
        let client = await RestClient(session: OAuthSession(credentials: credentials, client: oauth))
        let created = try await client.create("Account", fields: ["Name": "Made by Ada"])
        let record = try await client.retrieve("Account", id: created, fields: ["OwnerId", "CreatedById"])
        #expect(record["OwnerId"]?.stringValue == identity.userId)
        #expect(record["CreatedById"]?.stringValue == identity.userId)
        #expect(try await client.currentUserId() == identity.userId)

        // A code works once.
        await #expect(throws: RestError.self) { try await oauth.exchange(code: code, for: login) }
        #expect(org.localForce.issuedTokenCount(grantType: "authorization_code") == 1)
        await org.stop()
    }

    @Test func wrongPasswordShowsTheFormAgainWithAnError() async throws {
        let org = try await OAuthOrg()
        let login = try org.client().authorizationRequest()
        let page = try await Self.logIn(org, login, password: "wrong")
        #expect(page.status == 200)
        #expect(page.text.contains("id=\"error\""))
        #expect(page.text.contains("check your username and password"))
        #expect(page.input("ticket") == nil)
        #expect(page.input("username") == OAuthOrg.ada.0)
        await org.stop()
    }

    @Test func denyRedirectsWithAccessDenied() async throws {
        let org = try await OAuthOrg()
        let login = try org.client().authorizationRequest()
        let redirect = try await Self.logIn(org, login, decision: "deny")
        #expect(redirect.status == 302)
        #expect(redirect.redirectQuery["error"] == "access_denied")
        #expect(redirect.redirectQuery["state"] == login.state)
        #expect(throws: RestError.self) { try login.code(fromCallbackQuery: redirect.redirectQuery) }
        await org.stop()
    }

    @Test func aForgedCallbackStateIsRefused() async throws {
        let org = try await OAuthOrg()
        let login = try org.client().authorizationRequest()
        #expect(throws: RestError.self) { try login.code(fromCallbackQuery: ["code": "aPrxSomething", "state": "not-the-state"]) }
        await org.stop()
    }

    @Test func aWrongCodeVerifierIsRefused() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client()
        let login = try oauth.authorizationRequest()
        let redirect = try await Self.logIn(org, login)
        let code = try login.code(fromCallbackQuery: redirect.redirectQuery)
        let other = try oauth.authorizationRequest() // another verifier
        do {
            _ = try await oauth.exchange(code: code, for: other)
            Issue.record("a code was exchanged with the wrong verifier")
        } catch RestError.oauth(let error, let description) {
            #expect(error == "invalid_grant")
            #expect(description == "invalid code verifier")
        }
        await org.stop()
    }

    @Test func unknownAppsAndUntrustedRedirectsGetAnErrorPageNotARedirect() async throws {
        let org = try await OAuthOrg()
        let unknown = try await org.page(
            "/services/oauth2/authorize?response_type=code&client_id=nobody&redirect_uri=https%3A%2F%2Fevil.example%2F")
        #expect(unknown.status == 400)
        #expect(unknown.headers["location"] == nil)
        #expect(unknown.text.contains("invalid_client_id"))
        let mismatch = try await org.page(
            "/services/oauth2/authorize?response_type=code&client_id=web-app&redirect_uri=https%3A%2F%2Fevil.example%2Fcb")
        #expect(mismatch.status == 400)
        #expect(mismatch.headers["location"] == nil)
        #expect(mismatch.text.contains("redirect_uri_mismatch"))
        // A loopback redirect matches on any port (RFC 8252), so a CLI may listen where it can.
        let loopback = try await org.page(
            "/services/oauth2/authorize?response_type=code&client_id=web-app&redirect_uri=http%3A%2F%2F127.0.0.1%3A40123%2FOauthRedirect&code_challenge=\(Self.challenge)"
        )
        #expect(loopback.status == 200)
        #expect(loopback.input("redirect_uri") == "http://127.0.0.1:40123/OauthRedirect")
        // Hostile text is escaped, never echoed as markup.
        let hostile = try await org.page(
            "/services/oauth2/authorize?response_type=code&client_id=web-app&code_challenge=\(Self.challenge)&state=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E"
        )
        #expect(hostile.status == 200)
        #expect(!hostile.text.contains("<script>"))
        #expect(hostile.headers["x-frame-options"] == "DENY")
        // A public app (no secret) must use PKCE: without a challenge, the app gets an error.
        let noPKCE = try await org.page("/services/oauth2/authorize?response_type=code&client_id=web-app&state=s1")
        #expect(noPKCE.status == 302)
        #expect(noPKCE.redirectQuery["error"] == "invalid_request")
        #expect(noPKCE.redirectQuery["state"] == "s1")
        let padded = try await org.page(
            "/services/oauth2/authorize?response_type=code&client_id=web-app&code_challenge=\(Self.challenge)%3D")
        #expect(padded.redirectQuery["error"] == "invalid_request")
        await org.stop()
    }

    /// A custom-scheme callback (an iOS app's, or what `ASWebAuthenticationSession` returns):
    /// the code when it is this login's redirect with this login's state, typed errors otherwise.
    @Test func customSchemeCallbackURLs() throws {
        let client = OAuthClient(
            loginURL: try #require(URL(string: "https://login.example.com")), clientId: "app", redirectURI: "myapp://oauth/done")
        let login = try client.authorizationRequest()
        let code = try login.code(fromCallbackURL: try #require(URL(string: "myapp://oauth/done?code=abc%20d&state=\(login.state)")))
        #expect(code == "abc d")
        #expect(try login.code(fromCallbackURL: try #require(URL(string: "MYAPP://OAuth/done?state=\(login.state)&code=x"))) == "x")
        for bad in ["otherapp://oauth/done?code=x&state=\(login.state)", "myapp://oauth/elsewhere?code=x&state=\(login.state)"] {
            #expect(throws: RestError.self) { try login.code(fromCallbackURL: try #require(URL(string: bad))) }
        }
        for (url, expected) in [
            ("myapp://oauth/done?code=x&state=forged", "invalid_state"),
            ("myapp://oauth/done?error=access_denied&error_description=no&state=\(login.state)", "access_denied"),
        ] {
            do {
                _ = try login.code(fromCallbackURL: try #require(URL(string: url)))
                Issue.record("\(url) gave a code")
            } catch RestError.oauth(let error, _) {
                #expect(error == expected)
            }
        }
    }
}
