import CryptoExtras
import FastJSON
import Foundation
import LocalForce

/// The in-memory org the LocalForce targets run against: the standard schema and a few related
/// records, so that queries, updates and deletes have something to reach; a connected app (with
/// a secret, a loopback redirect, a run-as user and a JWT key) and a user, so that every OAuth
/// grant and page has something to reach.
enum FuzzOrg {
    static let token = "fuzz-token"
    /// Inputs served by one org before a fresh one replaces it: what inputs write (records,
    /// cursors) stays bounded, and a crash reproduces from a short history.
    static let inputsPerOrg = 5_000

    static func make() async -> LocalForce {
        do {
            let jwtKey = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation
            let auth = try AuthConfiguration(
                connectedApps: [
                    .init(
                        clientId: "fuzz-app", clientSecret: "fuzz-secret", redirectURIs: ["http://127.0.0.1:1717/OauthRedirect"],
                        runAs: "fuzz@example.com", jwtCertificatePEM: jwtKey)
                ],
                users: [.init(username: "fuzz@example.com", password: "fuzz-password", lastName: "Fuzz")])
            let localForce = try await LocalForce(
                database: try SQLiteDatabase(path: ":memory:"), token: token, auth: auth,
                // Connects answer at once: a long poll would hold the fuzzer for minutes.
                streaming: StreamingOptions(longPollTimeout: .milliseconds(10)))
            let account = await localForce.handle(post("/services/data/v66.0/sobjects/Account", ["Name": "Acme", "Industry": "Energy"]))
            let accountId = (try? JSONValue(parsing: account.body))?["id"]?.stringValue ?? ""
            _ = await localForce.handle(
                post("/services/data/v66.0/sobjects/Contact", ["LastName": "Smith", "AccountId": .string(accountId)]))
            _ = await localForce.handle(
                post(
                    "/services/data/v66.0/sobjects/Opportunity",
                    ["Name": "Deal", "StageName": "New", "CloseDate": "2026-01-01", "AccountId": .string(accountId)]))
            return localForce
        } catch {
            fatalError("fuzz org setup failed: \(error)")
        }
    }

    private static func post(_ path: String, _ body: JSONValue) -> APIRequest {
        APIRequest(method: "POST", path: path, query: nil, headers: ["Authorization": "Bearer \(token)"], body: body.jsonBytes)
    }
}

/// The org of a target, replaced by a fresh one every ``FuzzOrg/inputsPerOrg`` inputs.
/// libFuzzer calls targets from one thread only.
final class FuzzOrgHolder: @unchecked Sendable {
    private var localForce: LocalForce
    private var inputs = 0

    init() {
        localForce = blocking { await FuzzOrg.make() }
    }

    /// The org for the next input.
    func next() -> LocalForce {
        inputs += 1
        if inputs % FuzzOrg.inputsPerOrg == 0 { localForce = blocking { await FuzzOrg.make() } }
        return localForce
    }
}
