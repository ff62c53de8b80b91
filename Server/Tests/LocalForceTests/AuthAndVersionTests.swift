import FastJSON
@_spi(MSyncInternal) import SalesforceWire
import Testing

@testable import LocalForce

@Suite struct AuthAndVersionTests {
    @Test func versionsNeedNoTokenEverythingElseDoes() async throws {
        try await withServer { server in
            let versions = try await server.send("GET", "/services/data/", authorized: false)
            #expect(versions.status == 200)
            let list = versions.json?.arrayValue ?? []
            #expect(list.count == 36)
            #expect(list.first?["version"] == "31.0" && list.last?["url"] == "/services/data/v66.0")
            #expect(list.first { $0["version"] == "59.0" }?["label"] == "Winter '24")
            #expect(versions.headers["content-type"] == "application/json;charset=UTF-8")
            for path in [
                "", "sobjects", "sobjects/Account", "sobjects/Account/describe", "query?q=SELECT+Id+FROM+Account", "limits/",
                "sobjects/Account/001000000000001AAA",
            ] {
                let reply = try await server.send("GET", path, authorized: false)
                #expect(reply.status == 401, "\(path)")
                #expect(reply.errorCode == "INVALID_SESSION_ID" && reply.message == "Session expired or invalid")
            }
            let wrong = try await server.send("GET", "sobjects", headers: ["Authorization": "Bearer nope"], authorized: false)
            #expect(wrong.status == 401)
        }
    }

    @Test func resourcesLimitsAndUnknownPaths() async throws {
        try await withServer { server in
            let resources = try await server.send("GET", "/services/data/v59.0/")
            #expect(resources.json?["query"] == "/services/data/v59.0/query")
            #expect(resources.json?["sobjects"] == "/services/data/v59.0/sobjects")
            let limits = try await server.send("GET", "limits/")
            #expect(limits.json?["DailyApiRequests"]?["Max"]?.int64Value ?? 0 > 0)
            for path in [
                "/services/data/v30.0/sobjects", "/services/data/v99.0/sobjects", "/services/data/vX/sobjects", "nothing-here",
                "sobjects/NoSuchObject__c",
            ] {
                let reply = try await server.send("GET", path)
                #expect(reply.status == 404, "\(path)")
                #expect(reply.errorCode == "NOT_FOUND" && reply.message == "The requested resource does not exist")
            }
            let method = try await server.send("DELETE", "limits")
            #expect(method.status == 405 && method.errorCode == "METHOD_NOT_ALLOWED")
        }
    }

    /// The HTTP server (Hummingbird's router and LocalForce's middleware) answers exactly what
    /// LocalForce answers in process, for routed resources, paths no route serves, methods no
    /// route takes, and requests without the token.
    @Test func routerAnswersAsLocalForceDoes() async throws {
        try await withServer { server in
            let cases: [(method: String, path: String, authorized: Bool)] = [
                ("GET", "/", true), ("GET", "/services", true), ("GET", "/services/oauth2/token", true), ("GET", "/other/x", true),
                ("POST", "/services/data", true), ("PROPFIND", "/services/data/v66.0/limits", true), ("OPTIONS", "/api/Account", true),
                ("GET", "/services/data/v66.0/limits", false), ("GET", "/nothing", false), ("GET", "/services/data", false),
                ("GET", "/services/oauth2/userinfo", false), ("DELETE", "/services/data/v66.0/limits", true),
            ]
            for (method, path, authorized) in cases {
                let reply = try await server.send(method, path, authorized: authorized)
                let direct = await server.server.localForce.handle(
                    APIRequest(
                        method: method, path: path, query: nil,
                        headers: authorized ? ["Authorization": "Bearer \(TestServer.token)"] : [:], body: []))
                #expect(reply.status == direct.status, "\(method) \(path)")
                #expect(reply.json == (try? JSONValue(parsing: direct.body)), "\(method) \(path)")
            }
        }
    }

    /// A request the router does not match is still LocalForce's: a percent-encoded path is
    /// served with its body, and a scheduled fault applies to an unrouted method as to any other.
    @Test func unroutedRequestsKeepTheirBodyAndFaults() async throws {
        try await withServer { server in
            let created = try await server.send("POST", "/services/%64ata/v66.0/sobjects/Account", json: ["Name": "Encoded"])
            #expect(created.status == 201 && created.json?["success"] == true)
            #expect(try await server.allRecords("SELECT Name FROM Account").map { $0["Name"] } == ["Encoded"])
            await server.server.localForce.faults.schedule(.dropAfter, matching: { $0.method == "PROPFIND" })
            await #expect(throws: (any Error).self) { _ = try await server.send("PROPFIND", "limits") }
            #expect(try await server.send("PROPFIND", "limits").status == 405)
        }
    }

    @Test func idChecksums() {
        #expect(SalesforceId("001B000001Lp1Fx")?.value == "001B000001Lp1FxIAJ")
        #expect(SalesforceId("a00B000000FSjVU")?.value == "a00B000000FSjVUIA1")
        #expect(SalesforceId("a00B000000FSjVUIA1") != nil)
        #expect(SalesforceId("a00B000000FSjVUIB1") == nil)
        #expect(SalesforceId("001B000001Lp1FxIAJX") == nil)
        #expect(SalesforceId("001B00000'Lp1Fx") == nil)
        let generated = SalesforceId(prefix: "003", sequence: 123_456)
        #expect(generated.value.count == 18 && generated.keyPrefix == "003" && SalesforceId(generated.value) == generated)
        #expect(SalesforceId(generated.fifteen) == generated)
    }
}
