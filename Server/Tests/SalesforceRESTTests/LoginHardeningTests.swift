import FastJSON
import Foundation
import NIOConcurrencyHelpers
import SalesforceREST
import Testing

@testable import LocalForce

/// What the OAuth endpoints do against stolen codes and guessed passwords, over HTTP: a code
/// used twice revokes what it gave, failed password logins lock the user and then the app, and
/// secrets are never taken from a URL.
@Suite struct LoginHardeningTests {
    @Test func aCodeUsedTwiceRevokesTheTokensOfItsFirstUse() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client()
        let (login, code, credentials) = try await org.webLogin(oauth)
        let refreshed = try await oauth.refresh(credentials)
        for token in [credentials.accessToken, refreshed.accessToken] {
            let client = RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(token))
            _ = try await client.query("SELECT Id FROM Account")
        }
        // Someone else has the code: its second use gets nothing and ends the first one's session.
        let second = await GrantTests.oauthError { _ = try await oauth.exchange(code: code, for: login) }
        #expect(second?.0 == "invalid_grant" && second?.1 == "invalid authorization code")
        for token in [credentials.accessToken, refreshed.accessToken] {
            let client = RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(token))
            await #expect(throws: RestError.self) { _ = try await client.query("SELECT Id FROM Account") }
        }
        await #expect(throws: RestError.self) { _ = try await oauth.refresh(credentials) }
        // Another login's session is untouched.
        let otherCredentials = try await org.webLogin(oauth).credentials
        _ = try await RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(otherCredentials.accessToken))
            .query("SELECT Id FROM Account")
        await org.stop()
    }

    @Test func failedPasswordsLockTheUserThenTheApp() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client(OAuthOrg.confidentialApp, secret: OAuthOrg.confidentialSecret, redirectURI: nil)
        for _ in 0..<9 {
            let wrong = await GrantTests.oauthError { _ = try await oauth.password(username: OAuthOrg.ada.0, password: "guess") }
            #expect(wrong?.1 == "authentication failure")
        }
        // Nine failures: the right password still works, and starts the count again.
        _ = try await oauth.password(username: OAuthOrg.ada.0, password: OAuthOrg.ada.1)
        for _ in 0..<LoginThrottle.maximumUserFailures {
            _ = await GrantTests.oauthError { _ = try await oauth.password(username: OAuthOrg.ada.0, password: "guess") }
        }
        // Ten in a row: locked out, the right password too, answered as a wrong one; the login page too.
        let locked = await GrantTests.oauthError { _ = try await oauth.password(username: OAuthOrg.ada.0, password: OAuthOrg.ada.1) }
        #expect(locked?.0 == "invalid_grant" && locked?.1 == "authentication failure")
        let page = try await WebServerFlowTests.logIn(org, try org.client().authorizationRequest())
        #expect(page.text.contains("Please check your username and password"))
        // Another user is not locked.
        _ = try await oauth.password(username: OAuthOrg.robot.0, password: OAuthOrg.robot.1)

        // A guessing run over many names: the app's password logins stop, any user's.
        let counted = 9 + LoginThrottle.maximumUserFailures // a locked user's attempt is not counted
        for index in 0..<(LoginThrottle.maximumClientFailures - counted) {
            _ = await GrantTests.oauthError { _ = try await oauth.password(username: "user\(index)@example.com", password: "guess") }
        }
        let throttled = await GrantTests.oauthError { _ = try await oauth.password(username: OAuthOrg.robot.0, password: OAuthOrg.robot.1) }
        #expect(throttled?.1 == "authentication failure")
        // Through another app, robot still logs in (on the login page of the web-server flow).
        let web = try await WebServerFlowTests.logIn(
            org, try org.client().authorizationRequest(), username: OAuthOrg.robot.0, password: OAuthOrg.robot.1)
        #expect(web.status == 302)
        await org.stop()
    }

    @Test func lockoutsEndAfterFifteenMinutes() {
        let throttle = LoginThrottle()
        let end = LoginThrottle.lockout
        func wrong(_ user: String?, _ client: String = "app", at now: Int64) -> Bool {
            throttle.attempt(user: user, client: client, now: now) { false }
        }
        func right(_ user: String?, _ client: String = "app", at now: Int64) -> Bool {
            throttle.attempt(user: user, client: client, now: now) { true }
        }
        for _ in 0..<LoginThrottle.maximumUserFailures { _ = wrong("005A", at: 0) }
        #expect(!right("005A", at: end - 1))
        #expect(right("005B", at: end - 1))
        #expect(right("005A", at: end))
        // After a lockout the count starts again: one more failure does not lock.
        _ = wrong("005A", at: end)
        #expect(right("005A", at: end + 1))
        // An app is stopped for a whole period after its 100th failure, not until a window ends.
        for index in 0..<LoginThrottle.maximumClientFailures { _ = wrong(nil, "other", at: end + Int64(index)) }
        let last = end + Int64(LoginThrottle.maximumClientFailures - 1)
        #expect(!right("005C", "other", at: last + end - 1))
        #expect(right("005C", "app", at: last + end - 1))
        #expect(right("005C", "other", at: last + 2 * end))
    }

    /// Parallel guesses: exactly ten are compared before the user is locked.
    @Test func parallelGuessesCannotPassTheLimit() {
        let throttle = LoginThrottle()
        let compared = NIOLockedValueBox(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            _ = throttle.attempt(user: "005A", client: "app", now: 0) {
                compared.withLockedValue { $0 += 1 }
                return false
            }
        }
        #expect(compared.withLockedValue { $0 } == LoginThrottle.maximumUserFailures)
    }

    @Test func aSecretInTheURLIsRefused() async throws {
        let org = try await OAuthOrg()
        let secretInQuery = try await org.page(
            "/services/oauth2/token?client_secret=\(OAuthOrg.confidentialSecret)",
            form: [
                ("grant_type", "password"), ("client_id", OAuthOrg.confidentialApp), ("username", OAuthOrg.robot.0),
                ("password", OAuthOrg.robot.1),
            ])
        #expect(secretInQuery.status == 400)
        let json = try JSONValue(parsing: Array(secretInQuery.text.utf8))
        #expect(json["error"]?.stringValue == "invalid_request")
        #expect(json["error_description"]?.stringValue == "client_secret must be sent in the request body, not in the URL")
        let passwordInQuery = try await org.page(
            "/services/oauth2/token?password=\(OAuthOrg.encode(OAuthOrg.robot.1))",
            form: [
                ("grant_type", "password"), ("client_id", OAuthOrg.confidentialApp), ("client_secret", OAuthOrg.confidentialSecret),
                ("username", OAuthOrg.robot.0),
            ])
        #expect(passwordInQuery.status == 400)
        #expect(passwordInQuery.text.contains("password must be sent in the request body"))
        let refreshInQuery = try await org.page(
            "/services/oauth2/token?refresh_token=5AepSomething", form: [("grant_type", "refresh_token"), ("client_id", OAuthOrg.webApp)])
        #expect(refreshInQuery.status == 400 && refreshInQuery.text.contains("refresh_token must be sent in the request body"))
        // The login page's password, too.
        let pageInQuery = try await org.page(
            "/services/oauth2/authorize?password=\(OAuthOrg.encode(OAuthOrg.ada.1))",
            form: [
                ("response_type", "code"), ("client_id", OAuthOrg.webApp), ("redirect_uri", OAuthOrg.webRedirect),
                ("code_challenge", WebServerFlowTests.challenge), ("username", OAuthOrg.ada.0),
            ])
        #expect(pageInQuery.status == 400 && pageInQuery.text.contains("the password must be sent in the form body"), "\(pageInQuery.text)")
        // The same in the body: accepted.
        let inBody = try await org.page(
            "/services/oauth2/token",
            form: [
                ("grant_type", "password"), ("client_id", OAuthOrg.confidentialApp), ("client_secret", OAuthOrg.confidentialSecret),
                ("username", OAuthOrg.robot.0), ("password", OAuthOrg.robot.1),
            ])
        #expect(inBody.status == 200, "\(inBody.text)")
        await org.stop()
    }
}
