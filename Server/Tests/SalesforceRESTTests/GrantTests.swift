import Crypto
import CryptoExtras
import FastJSON
import Foundation
import LocalForce
import SalesforceREST
import SalesforceWire
import Testing

/// The grants without a browser (JWT bearer, client credentials, password, refresh) and
/// revocation, against LocalForce over HTTP.
@Suite struct GrantTests {
    /// The OAuth error of a call, or nil when it succeeded or failed otherwise.
    static func oauthError(_ body: () async throws -> Void) async -> (String, String)? {
        do {
            try await body()
        } catch RestError.oauth(let error, let description) {
            return (error, description)
        } catch {
            return nil
        }
        return nil
    }

    @Test func jwtBearerWithTheAppsCertificate() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client(OAuthOrg.jwtApp, redirectURI: nil)
        let credentials = try await oauth.jwtBearer(username: OAuthOrg.robot.0, privateKeyPEM: org.privateKeyPEM)
        #expect(credentials.refreshToken == nil)
        #expect(try await oauth.userIdentity(for: credentials).username == OAuthOrg.robot.0)
        // Salesforce's own audience is accepted too.
        _ = try await oauth.jwtBearer(username: OAuthOrg.ada.0, privateKeyPEM: org.privateKeyPEM, audience: "https://login.salesforce.com")

        let otherKey = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let wrongKey = await Self.oauthError { _ = try await oauth.jwtBearer(username: OAuthOrg.robot.0, privateKeyPEM: otherKey) }
        #expect(wrongKey?.0 == "invalid_grant" && wrongKey?.1 == "invalid assertion")
        let audience = await Self.oauthError {
            _ = try await oauth.jwtBearer(username: OAuthOrg.robot.0, privateKeyPEM: org.privateKeyPEM, audience: "https://evil.example")
        }
        #expect(audience?.1 == "audience is invalid")
        let stranger = await Self.oauthError {
            _ = try await oauth.jwtBearer(username: "nobody@example.com", privateKeyPEM: org.privateKeyPEM)
        }
        #expect(stranger?.0 == "invalid_grant")
        let unknownApp = await Self.oauthError {
            _ = try await org.client("no-such-app").jwtBearer(username: OAuthOrg.robot.0, privateKeyPEM: org.privateKeyPEM)
        }
        #expect(unknownApp?.0 == "invalid_client_id")
        #expect(org.localForce.issuedTokenCount(grantType: "jwt-bearer") == 2)
        await org.stop()
    }

    @Test func anExpiredOrForgedAssertionIsRefused() async throws {
        let org = try await OAuthOrg()
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: org.privateKeyPEM)
        func assertion(_ claims: JSONValue, header: String = #"{"alg":"RS256"}"#) throws -> String {
            let signed = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(claims.jsonBytes)
            let signature = try key.signature(for: SHA256.hash(data: Array(signed.utf8)), padding: .insecurePKCS1v1_5)
            return signed + "." + Base64URL.encode(signature.rawRepresentation)
        }
        let aud = JSONValue.string(org.baseURL.absoluteString)
        let past = JSONValue.int(Int64(Date().timeIntervalSince1970) - 60)
        let future = JSONValue.string(String(Int64(Date().timeIntervalSince1970) + 120)) // a string, as simple-salesforce sends it
        let farFuture = JSONValue.int(Int64(Date().timeIntervalSince1970) + 3600)
        let cases: [(String, String)] = [
            (try assertion(["iss": "jwt-app", "sub": .string(OAuthOrg.robot.0), "aud": aud, "exp": past]), "expired authorization code"),
            // Valid for an hour: a reusable password, refused (Salesforce takes three minutes).
            (try assertion(["iss": "jwt-app", "sub": .string(OAuthOrg.robot.0), "aud": aud, "exp": farFuture]), "invalid assertion"),
            (
                try assertion(["iss": "jwt-app", "sub": .string(OAuthOrg.robot.0), "aud": aud, "exp": future], header: #"{"alg":"none"}"#),
                "invalid assertion"
            ),
            ("not.a.jwt", "invalid assertion"),
            (String(repeating: "A", count: 20_000), "invalid assertion"),
        ]
        for (text, expected) in cases {
            let reply = try await org.page(
                "/services/oauth2/token", form: [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", text)])
            #expect(reply.status == 400)
            let json = try JSONValue(parsing: Array(reply.text.utf8))
            #expect(json["error_description"]?.stringValue == expected)
        }
        // The audience is the server's bound URL, not whatever Host a request claims.
        let elsewhere = try assertion(["iss": "jwt-app", "sub": .string(OAuthOrg.robot.0), "aud": "http://other.example", "exp": future])
        let spoofed = await org.localForce.handle(
            APIRequest(
                method: "POST", path: "/services/oauth2/token", query: nil, headers: ["Host": "other.example"],
                body: Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(elsewhere)".utf8)))
        #expect(spoofed.status == 400)
        #expect(String(decoding: spoofed.body, as: UTF8.self).contains("audience is invalid"))
        let good = try assertion(["iss": "jwt-app", "sub": .string(OAuthOrg.robot.0), "aud": aud, "exp": future])
        let reply = try await org.page(
            "/services/oauth2/token", form: [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", good)])
        #expect(reply.status == 200)
        #expect(reply.headers["cache-control"] == "no-store")
        await org.stop()
    }

    @Test func clientCredentialsActAsTheRunAsUser() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client(OAuthOrg.confidentialApp, secret: OAuthOrg.confidentialSecret, redirectURI: nil)
        let credentials = try await oauth.clientCredentials()
        #expect(try await oauth.userIdentity(for: credentials).username == OAuthOrg.robot.0)
        // The HTTP Basic form of the same grant (simple-salesforce sends this one).
        let basic = Data("\(OAuthOrg.confidentialApp):\(OAuthOrg.confidentialSecret)".utf8).base64EncodedString()
        let reply = try await org.page(
            "/services/oauth2/token", form: [("grant_type", "client_credentials")], headers: ["Authorization": "Basic \(basic)"])
        #expect(reply.status == 200)
        let wrong = await Self.oauthError {
            _ = try await org.client(OAuthOrg.confidentialApp, secret: "nope", redirectURI: nil).clientCredentials()
        }
        #expect(wrong?.0 == "invalid_client")
        let noSecret = await Self.oauthError { _ = try await org.client(OAuthOrg.confidentialApp, redirectURI: nil).clientCredentials() }
        #expect(noSecret?.0 == "invalid_client")
        let notEnabled = await Self.oauthError { _ = try await org.client(OAuthOrg.webApp).clientCredentials() }
        #expect(notEnabled != nil)
        await org.stop()
    }

    @Test func passwordGrant() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client(OAuthOrg.confidentialApp, secret: OAuthOrg.confidentialSecret, redirectURI: nil)
        let credentials = try await oauth.password(username: OAuthOrg.ada.0, password: OAuthOrg.ada.1)
        #expect(credentials.refreshToken == nil)
        let identity = try await oauth.userIdentity(for: credentials)
        #expect(identity.username == OAuthOrg.ada.0)
        // The version's resources list the id URL of the token's user, as a real org does.
        let client = RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(credentials.accessToken))
        let resources = try await client.send(RestRequest(method: .get, path: "/services/data/v59.0")).json()
        let idURL = try #require(resources["identity"]?.stringValue)
        #expect(idURL == "\(org.baseURL.absoluteString)/id/00D000000000001AAA/\(identity.userId)")
        let page = try await client.send(RestRequest(method: .get, path: String(idURL.dropFirst(org.baseURL.absoluteString.count)))).json()
        #expect(page["username"]?.stringValue == OAuthOrg.ada.0)
        let wrong = await Self.oauthError { _ = try await oauth.password(username: OAuthOrg.ada.0, password: "nope") }
        #expect(wrong?.0 == "invalid_grant" && wrong?.1 == "authentication failure")
        await org.stop()
    }

    @Test func refreshAndRevoke() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client()
        let credentials = try await org.webLogin(oauth).credentials
        let refreshed = try await oauth.refresh(credentials)
        #expect(refreshed.accessToken != credentials.accessToken)
        #expect(refreshed.refreshToken == credentials.refreshToken)

        // Revoking an access token ends only it.
        try await oauth.revoke(credentials.accessToken)
        let first = RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(credentials.accessToken))
        await #expect(throws: RestError.self) { _ = try await first.query("SELECT Id FROM Account") }
        let second = RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(refreshed.accessToken))
        _ = try await second.query("SELECT Id FROM Account")

        // Revoking the refresh token ends the session: its access tokens, and any refresh.
        try await oauth.revoke(try #require(credentials.refreshToken))
        do {
            _ = try await second.query("SELECT Id FROM Account")
            Issue.record("a revoked session's token still works")
        } catch RestError.sessionExpired {}
        do {
            _ = try await oauth.refresh(credentials)
            Issue.record("a revoked refresh token still works")
        } catch RestError.sessionExpired(let message) {
            #expect(message.contains("expired access/refresh token"))
        }
        let again = await Self.oauthError { try await oauth.revoke("unknown-token") }
        #expect(again?.0 == "unsupported_token_type")
        await org.stop()
    }

    @Test func theStaticTokenStillWorksBesideOAuth() async throws {
        let org = try await OAuthOrg()
        let client = RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(OAuthOrg.staticToken))
        _ = try await client.query("SELECT Id FROM Account")
        let info = try await client.send(RestRequest(method: .get, path: "/services/oauth2/userinfo")).json()
        #expect(info["preferred_username"]?.stringValue == "api@localforce.invalid")
        let resources = try await client.send(RestRequest(method: .get, path: "/services/data/v66.0")).json()
        let userId = try #require(info["user_id"]?.stringValue)
        #expect(resources["identity"]?.stringValue == "\(org.baseURL.absoluteString)/id/00D000000000001AAA/\(userId)")
        let token = try await org.page("/services/oauth2/token", form: [("grant_type", "made_up")])
        #expect(token.status == 400)
        #expect(token.text.contains("unsupported_grant_type"))
        let get = try await org.page("/services/oauth2/token")
        #expect(get.status == 400)
        await org.stop()
    }

    /// An app with a secret must send it to refresh; a 5xx of the token endpoint during a
    /// renewal is transient (retried), not the end of the session.
    @Test func confidentialRefreshNeedsTheSecretAndTokenEndpointOutagesAreRetried() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client(
            OAuthOrg.confidentialApp, secret: OAuthOrg.confidentialSecret, redirectURI: "https://app.example.com/callback")
        let login = try oauth.authorizationRequest()
        let code = try login.code(fromCallbackQuery: try await WebServerFlowTests.logIn(org, login).redirectQuery)
        let credentials = try await oauth.exchange(code: code, for: login)
        let withoutSecret = await Self.oauthError { _ = try await OAuthClient(for: credentials).refresh(credentials) }
        #expect(withoutSecret?.0 == "invalid_client")
        _ = try await oauth.refresh(credentials)

        let session = OAuthSession(credentials: credentials, client: oauth)
        let client = await RestClient(session: session, retryPolicy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10)))
        org.localForce.expireAccessTokens()
        await org.localForce.faults.schedule(.unavailable) { $0.segments.last == "token" }
        _ = try await client.query("SELECT Id FROM Account")
        #expect(await session.renewalCount == 1)
        await org.stop()
    }

    /// Without a token, the open endpoints read small bodies only: nobody can hold the body
    /// memory budget without logging in.
    @Test func openEndpointsTakeSmallBodiesOnly() async throws {
        let org = try await OAuthOrg()
        let large = [("grant_type", "password"), ("padding", String(repeating: "x", count: 70_000))]
        let refused = try await org.page("/services/oauth2/token", form: large)
        #expect(refused.status == 413)
        let withToken = try await org.page(
            "/services/oauth2/token", form: large, headers: ["Authorization": "Bearer \(OAuthOrg.staticToken)"])
        #expect(withToken.status == 400) // read, then refused as a grant
        await org.stop()
    }
}
