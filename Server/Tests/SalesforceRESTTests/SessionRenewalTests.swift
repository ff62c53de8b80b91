import FastJSON
import Foundation
import LocalForce
import NIOConcurrencyHelpers
import SalesforceREST
import Testing

/// Expired sessions: one renewal shared by every request in flight, then the requests go
/// through; a renewal that fails is `sessionExpired` for all of them.
@Suite struct SessionRenewalTests {
    /// Credentials of the web-server flow for Ada.
    static func logIn(_ org: OAuthOrg) async throws -> OAuthCredentials {
        let oauth = org.client()
        let login = try oauth.authorizationRequest()
        let code = try login.code(fromCallbackQuery: try await WebServerFlowTests.logIn(org, login).redirectQuery)
        return try await oauth.exchange(code: code, for: login)
    }

    @Test func anAccessTokenExpiresAfterItsLifetimeAndTheSessionRenewsIt() async throws {
        // Five seconds: a refreshed token must outlive its own request on a loaded machine (two
        // seconds did not, once, with the whole suite running).
        let org = try await OAuthOrg(tokenLifetime: .seconds(5))
        let credentials = try await Self.logIn(org)
        let renewed = NIOLockedValueBox<[OAuthCredentials]>([])
        let session = OAuthSession(credentials: credentials, client: org.client()) { fresh in renewed.withLockedValue { $0.append(fresh) } }
        let client = await RestClient(session: session)
        _ = try await client.query("SELECT Id FROM Account")
        try await Task.sleep(for: .milliseconds(5300))
        let raw = RestClient(instanceURL: org.baseURL, tokenProvider: StaticAccessToken(credentials.accessToken))
        do {
            _ = try await raw.query("SELECT Id FROM Account")
            Issue.record("an expired token still works")
        } catch RestError.sessionExpired {}
        _ = try await client.query("SELECT Id FROM Account")
        // At least one renewal (a loaded machine may outlive a short-lived token more than once);
        // exactly one per expiry is checked where expiry is not a matter of timing.
        #expect(await session.renewalCount >= 1)
        #expect(renewed.withLockedValue { $0 }.count == (await session.renewalCount))
        #expect(renewed.withLockedValue { $0 }.allSatisfy { $0.refreshToken == credentials.refreshToken })
        await org.stop()
    }

    @Test func concurrentRequestsShareOneRefresh() async throws {
        let org = try await OAuthOrg()
        let credentials = try await Self.logIn(org)
        let session = OAuthSession(credentials: credentials, client: org.client())
        let client = await RestClient(session: session)
        _ = try await client.query("SELECT Id FROM Account")
        org.localForce.expireAccessTokens()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await client.query("SELECT Id FROM Account") } }
            try await group.waitForAll()
        }
        #expect(org.localForce.issuedTokenCount(grantType: "refresh_token") == 1)
        #expect(await session.renewalCount == 1)
        await org.stop()
    }

    @Test func aFailedRefreshIsSessionExpiredForEveryRequest() async throws {
        let org = try await OAuthOrg()
        let credentials = try await Self.logIn(org)
        let session = OAuthSession(credentials: credentials, client: org.client())
        let client = await RestClient(session: session)
        try await org.client().revoke(try #require(credentials.refreshToken))
        let failures = NIOLockedValueBox(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        _ = try await client.query("SELECT Id FROM Account")
                    } catch RestError.sessionExpired {
                        failures.withLockedValue { $0 += 1 }
                    } catch {}
                }
            }
        }
        #expect(failures.withLockedValue { $0 } == 4)
        #expect(org.localForce.issuedTokenCount(grantType: "refresh_token") == 0)
        await org.stop()
    }

    @Test func jwtSessionsRenewWithANewAssertion() async throws {
        let org = try await OAuthOrg()
        let oauth = org.client(OAuthOrg.jwtApp, redirectURI: nil)
        let key = org.privateKeyPEM
        let first = try await oauth.jwtBearer(username: OAuthOrg.robot.0, privateKeyPEM: key)
        let session = OAuthSession(credentials: first) { _ in try await oauth.jwtBearer(username: OAuthOrg.robot.0, privateKeyPEM: key) }
        let client = await RestClient(session: session)
        org.localForce.expireAccessTokens()
        _ = try await client.query("SELECT Id FROM Account")
        #expect(org.localForce.issuedTokenCount(grantType: "jwt-bearer") == 2)
        await org.stop()
    }
}
