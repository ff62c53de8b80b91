// snippet.hide
// The examples in the doc comments of LocalForce, LocalForceHTTP and LocalForceTesting (the
// symbol reference), run as tests.
import Foundation
import LocalForceHTTP
import LocalForceTesting
import Testing

@Test func localForceOnAPort() async throws {
    // snippet.show
    // snippet.localForce
    let localForce = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "secret")
    let server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
    print(server.baseURL) // http://127.0.0.1:54321
    // snippet.end
    // snippet.hide
    #expect(server.baseURL.port != 0)
    await server.stop()
}

@Test func localForceServer() async throws {
    let localForce = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "secret")
    // snippet.show
    // snippet.server
    let server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
    defer { Task { await server.stop() } }
    print(server.baseURL) // http://127.0.0.1:<free port>
    // snippet.end
    // snippet.hide
    #expect(
        try await RestClient(instanceURL: server.baseURL, tokenProvider: StaticAccessToken("secret")).query("SELECT Id FROM Account")
            .totalSize == 0)
}

@Test func inProcessTransport() async throws {
    // snippet.show
    // snippet.inProcess
    let org = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "t")
    let client = RestClient(
        instanceURL: URL(string: "http://localforce.invalid")!,
        tokenProvider: StaticAccessToken("t"), transport: InProcessTransport(org))
    // snippet.end
    // snippet.hide
    #expect(try await client.query("SELECT Id FROM Account").totalSize == 0)
}

@Test func testOrg() async throws {
    // snippet.show
    // snippet.testOrg
    let org = try await TestOrg.start()
    defer { Task { await org.stop() } }
    let id = try await org.client.create("Account", fields: ["Name": "Acme"])
    // snippet.end
    // snippet.hide
    #expect(id.hasPrefix("001"))
}

// snippet.show
// snippet.withLocalForce
@Test func syncsDown() async throws {
    try await withLocalForce { org, client in
        _ = try await client.create("Account", fields: ["Name": "Acme"])
        #expect(try await client.query("SELECT Name FROM Account").totalSize == 1)
    }
}
// snippet.end
