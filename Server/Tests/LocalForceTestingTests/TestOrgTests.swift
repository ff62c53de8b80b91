import FastJSON
import Foundation
import LocalForce
import LocalForceTesting
import MobileSync
import SalesforceREST
import SmartStore
import TestSupport
import Testing

/// The testing product works the same in process, over HTTP and over HTTPS.
@Suite struct TestOrgTests {
    @Test(arguments: [TestOrg.Transport.inProcess, .http, .https])
    func recordsRoundTrip(transport: TestOrg.Transport) async throws {
        let names = try await withLocalForce(transport: transport) { _, client in
            let id = try await client.create("Account", fields: ["Name": "Acme", "Industry": "Energy"])
            try await client.update("Account", id: id, fields: ["Name": "Acme Corp"])
            let page = try await client.query("SELECT Id, Name FROM Account WHERE Industry = 'Energy'")
            return try page.records().compactMap { $0["Name"]?.stringValue }
        }
        #expect(names == ["Acme Corp"])
    }

    @Test(arguments: [TestOrg.Transport.inProcess, .http])
    func serverTimeFollowsTheOrgClock(transport: TestOrg.Transport) async throws {
        try await withLocalForce(transport: transport, clockOffset: .seconds(3600)) { org, client in
            let before = org.currentTime()
            let time = try await client.serverTime()
            #expect(time >= before - 1000 && time <= org.currentTime())
        }
    }

    /// Over HTTPS the org's client trusts the org's own authority, whose file other clients
    /// (here Python's requests) trust too; the file goes with the org.
    @Test func httpsOrgsHandTheirAuthorityToOtherClients() async throws {
        let org = try await TestOrg.start(transport: .https)
        let base = try #require(org.baseURL)
        #expect(base.scheme == "https")
        _ = try await org.client.create("Account", fields: ["Name": "Secure"])
        let authority = try #require(org.certificateAuthorityFile)
        #expect(FileManager.default.fileExists(atPath: authority.path))
        let script = """
            import os, requests
            reply = requests.get(os.environ["ORG"] + "/services/data/v66.0/query?q=SELECT+Name+FROM+Account",
                                 headers={"Authorization": "Bearer " + os.environ["TOKEN"]})
            print(reply.json()["records"][0]["Name"])
            """
        let (status, output) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script],
            environment: ProcessInfo.processInfo.environment.merging(
                ["ORG": base.absoluteString, "TOKEN": TestOrg.token, "REQUESTS_CA_BUNDLE": authority.path]) { _, new in new },
            timeout: .seconds(120))
        await org.stop()
        #expect(status == 0 && output.contains("Secure"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: authority.path))
    }

    @Test func injectedDropsReachTheClientAsLostConnections() async throws {
        let faults = FaultInjection()
        try await withLocalForce(faults: faults) { _, client in
            await faults.schedule(.dropAfter, matching: { $0.method == "POST" })
            await #expect(throws: RestError.self) { _ = try await client.create("Account", fields: ["Name": "Lost"]) }
            // The create was applied before the connection was lost.
            let page = try await client.query("SELECT Name FROM Account")
            #expect(try page.records().map { $0["Name"] } == ["Lost"])
        }
    }

    /// Over HTTP the org has an address other clients can use with the token; in process it has none.
    @Test func baseURLServesOtherClients() async throws {
        let inProcess = try await TestOrg.start()
        #expect(inProcess.baseURL == nil)
        await inProcess.stop()
        let org = try await TestOrg.start(transport: .http)
        let url = try #require(org.baseURL)
        _ = try await org.client.create("Account", fields: ["Name": "Seen elsewhere"])
        let other = RestClient(instanceURL: url, tokenProvider: StaticAccessToken(TestOrg.token))
        let page = try await other.query("SELECT Name FROM Account")
        #expect(try page.records().map { $0["Name"] } == ["Seen elsewhere"])
        await org.stop()
    }

    @Test func aFailingBodyStillStopsTheOrg() async throws {
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await withLocalForce { _, _ in throw Failure() }
        }
    }
}
