import Foundation
import LocalForceHTTP
import TestSupport
import Testing

@testable import LocalForce

/// A real third-party Salesforce client, unchanged, against LocalForce over HTTP.
@Suite struct ThirdPartyClientTests {
    static let checks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/checks")

    /// Runs a check script of `Server/scripts/checks` against a test org over HTTP.
    static func check(_ script: String) async throws -> (status: Int32, output: String) {
        let server = try await TestServer()
        var environment = ProcessInfo.processInfo.environment
        environment["LOCALFORCE_URL"] = server.server.baseURL.absoluteString
        environment["LOCALFORCE_TOKEN"] = TestServer.token
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", checks.appendingPathComponent(script).path], environment: environment,
            timeout: .seconds(600))
        await server.stop()
        return result
    }

    @Test func simpleSalesforce() async throws {
        let (status, text) = try await Self.check("simple_salesforce_check.py")
        // simple-salesforce must be installed (scripts/test.sh installs it): a missing module fails here, loudly.
        #expect(status == 0, "\(text)")
        #expect(text.contains("simple-salesforce: all checks passed"))
    }

    /// simple-salesforce's `bulk2` (insert, upsert, update, delete, hard delete, results, query
    /// paged into files, queryAll) and `bulk` (JSON insert, update, query), unchanged, over
    /// HTTPS: the org serves a certificate of a self-signed authority that the client trusts
    /// through `REQUESTS_CA_BUNDLE`, with no transport adapter.
    @Test func simpleSalesforceBulkOverHTTPS() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (tls, _) = try LocalForceServer.TLS.selfSigned(in: directory)
        let localForce = try await LocalForce(database: try await TestServer.database(), token: TestServer.token)
        let server = try await LocalForceServer.start(localForce, tls: tls)
        var environment = ProcessInfo.processInfo.environment
        environment["LOCALFORCE_URL"] = server.baseURL.absoluteString
        environment["LOCALFORCE_TOKEN"] = TestServer.token
        environment["REQUESTS_CA_BUNDLE"] = directory.appendingPathComponent(LocalForceServer.TLS.authorityFileName).path
        let (status, text) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.checks.appendingPathComponent("simple_salesforce_bulk_check.py").path],
            environment: environment, timeout: .seconds(600))
        await server.stop()
        #expect(server.baseURL.scheme == "https")
        #expect(status == 0, "\(text)")
        #expect(text.contains("simple-salesforce bulk: all checks passed"))
    }

    /// salesforce-bulk 2.2.0 (PyPI), unchanged: Bulk API 1.0 in XML (jobs created, closed and
    /// aborted with `<jobInfo>`, infos, result lists and errors read as XML), CSV and XML
    /// batches, CSV and XML query results.
    @Test func salesforceBulkSpeaksXML() async throws {
        let (status, text) = try await Self.check("salesforce_bulk_check.py")
        // salesforce-bulk must be installed (scripts/test.sh installs it): a missing module fails here, loudly.
        #expect(status == 0, "\(text)")
        #expect(text.contains("salesforce-bulk: all checks passed"))
    }

    /// aiosfstream-ng 0.7.5 (PyPI), the maintained fork of aiosfstream: OAuth login, CDC and
    /// PushTopic subscriptions, replay after a restart and the fallback from a stale replay id.
    @Test func aiosfstream() async throws {
        let auth = try AuthConfiguration(
            connectedApps: [AuthConfiguration.ConnectedApp(clientId: "stream-app", clientSecret: "stream-secret")],
            users: [AuthConfiguration.User(username: "streamer@example.com", password: "stream-pass")])
        let localForce = try await LocalForce(
            database: try await TestServer.database(), token: TestServer.token, auth: auth,
            // aiocometd times every request out at 1.25 times the advised long poll: 15 s leaves
            // room for a loaded machine (closing a client waits for its pending connect, though).
            streaming: StreamingOptions(longPollTimeout: .seconds(15)))
        let server = try await LocalForceServer.start(localForce)
        var environment = ProcessInfo.processInfo.environment
        environment["LOCALFORCE_URL"] = server.baseURL.absoluteString
        environment["CLIENT_ID"] = "stream-app"
        environment["CLIENT_SECRET"] = "stream-secret"
        environment["USERNAME"] = "streamer@example.com"
        environment["PASSWORD"] = "stream-pass"
        let (status, text) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.checks.appendingPathComponent("aiosfstream_check.py").path],
            environment: environment)
        await server.stop()
        // aiosfstream-ng must be installed (scripts/test.sh installs it): a missing module fails here, loudly.
        #expect(status == 0, "\(text)")
        #expect(text.contains("aiosfstream-ng: all checks passed"))
    }
}
