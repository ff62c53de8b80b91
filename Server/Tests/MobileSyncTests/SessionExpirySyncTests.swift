import FastJSON
import Foundation
import LocalForce
import LocalForceHTTP
import MobileSyncSDKCompat
import NIOConcurrencyHelpers
import SalesforceREST
import SmartStore
import Testing

@testable import MobileSync

/// A sync whose OAuth session expires midway: one refresh and it completes; a session that
/// cannot be renewed ends the sync FAILED with "session expired", without a loop.
@Suite struct SessionExpirySyncTests {
    /// A LocalForce with the `msync` app and Ada, 1,000 accounts, and Ada's credentials from the
    /// web-server flow (run in-process: the pages are covered over HTTP elsewhere).
    struct World {
        let server: LocalForceServer
        let credentials: OAuthCredentials
        let oauth: OAuthClient
        var localForce: LocalForce { server.localForce }

        init() async throws {
            let auth = try AuthConfiguration(
                connectedApps: [.init(clientId: "msync", redirectURIs: ["http://127.0.0.1:1717/OauthRedirect"])],
                users: [.init(username: "ada@example.com", password: "correct horse", lastName: "Lovelace")])
            let localForce = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "static", auth: auth)
            server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
            let seeding = RestClient(instanceURL: server.baseURL, tokenProvider: StaticAccessToken("static"))
            for start in stride(from: 0, to: 1000, by: 200) {
                let records: [JSONValue] = (start..<start + 200).map {
                    ["attributes": ["type": "Account"], "Name": .string("Account \($0)")]
                }
                _ = try await seeding.createRecords(records)
            }
            oauth = OAuthClient(loginURL: server.baseURL, clientId: "msync", redirectURI: "http://127.0.0.1:1717/OauthRedirect")
            let login = try oauth.authorizationRequest()
            let code = try await Self.consent(localForce, login)
            credentials = try await oauth.exchange(code: code, for: login)
        }

        /// Logs in and allows through LocalForce's handler; the code of the redirect.
        static func consent(_ localForce: LocalForce, _ login: AuthorizationRequest) async throws -> String {
            let headers = ["Content-Type": "application/x-www-form-urlencoded", "Host": "127.0.0.1"]
            let form = (login.url.query ?? "") + "&username=ada%40example.com&password=correct+horse"
            let consent = await localForce.handle(
                APIRequest(method: "POST", path: "/services/oauth2/authorize", query: nil, headers: headers, body: Array(form.utf8)))
            let page = String(decoding: consent.body, as: UTF8.self)
            let marker = try #require(page.range(of: "name=\"ticket\" value=\""))
            let ticket = String(page[marker.upperBound...].prefix { $0 != "\"" })
            let redirect = await localForce.handle(
                APIRequest(
                    method: "POST", path: "/services/oauth2/authorize", query: nil, headers: headers,
                    body: Array("ticket=\(ticket)&decision=allow".utf8)))
            let location = try #require(redirect.headers["Location"].flatMap(URLComponents.init(string:)))
            let query = Dictionary((location.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            return try login.code(fromCallbackQuery: query)
        }
    }

    static func store() throws -> SmartStore {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        return store
    }

    @Test func aTokenExpiringAfterPageTwoCostsExactlyOneRefresh() async throws {
        let world = try await World()
        let session = OAuthSession(credentials: world.credentials, client: world.oauth)
        let client = await RestClient(session: session)
        let store = try Self.store()
        let manager = try SyncManager(store: store, client: client)
        let expired = NIOLockedValueBox(false)
        let trace = NIOLockedValueBox<[String]>([])
        let localForce = world.localForce
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
        let sync = try await manager.syncDown(target: target, soupName: "accounts") { state in
            trace.withLockedValue { $0.append("\(state.status.rawValue) \(state.progress)") }
            // Page 2 is stored: the session ends now, in the middle of the sync.
            if state.status == .running && state.progress == 40 && !expired.withLockedValue({ $0 }) {
                expired.withLockedValue { $0 = true }
                localForce.expireAccessTokens()
            }
        }
        #expect(expired.withLockedValue { $0 })
        #expect(sync.status == .done, "\(sync.error)")
        #expect(
            trace.withLockedValue { $0 } == ["RUNNING 0", "RUNNING 0", "RUNNING 20", "RUNNING 40", "RUNNING 60", "RUNNING 80", "DONE 100"])
        #expect(try await store.count(.all(soup: "accounts", orderPath: "Id", pageSize: 10)) == 1000)
        #expect(world.localForce.issuedTokenCount(grantType: "refresh_token") == 1)
        #expect(await session.renewalCount == 1)
        await world.server.stop()
    }

    @Test func aSessionThatCannotBeRenewedFailsTheSyncOnce() async throws {
        let world = try await World()
        let session = OAuthSession(credentials: world.credentials, client: world.oauth)
        let client = await RestClient(session: session)
        let manager = try SyncManager(store: try Self.store(), client: client)
        try await world.oauth.revoke(try #require(world.credentials.refreshToken))
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
        let before = client.requestCount
        let sync = try await manager.syncDown(target: target, soupName: "accounts")
        #expect(sync.status == .failed)
        #expect(sync.error.contains("Session expired"))
        // One request rejected, no retries of it: the failure is final, not a loop.
        #expect(client.requestCount - before == 1)
        await world.server.stop()
    }

    @Test func aLoginYieldsTheUserAccount() async throws {
        let world = try await World()
        let identity = try await world.oauth.userIdentity(for: world.credentials)
        let account = UserAccount(identity: identity, session: OAuthSession(credentials: world.credentials, client: world.oauth))
        #expect(account.userId == identity.userId && account.userId.hasPrefix("005"))
        #expect(account.orgId == "00D000000000001AAA")
        #expect(account.instanceURL == world.server.baseURL)
        #expect(identity.username == "ada@example.com")
        _ = try await RestClient(instanceURL: account.instanceURL, tokenProvider: account.tokenProvider).query(
            "SELECT Id FROM Account LIMIT 1")
        await world.server.stop()
    }
}
