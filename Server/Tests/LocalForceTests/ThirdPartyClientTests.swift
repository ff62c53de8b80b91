import Foundation
import TestSupport
import Testing

@testable import LocalForce

/// A real third-party Salesforce client, unchanged, against LocalForce over HTTP.
@Suite struct ThirdPartyClientTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/checks/simple_salesforce_check.py")

    @Test func simpleSalesforce() async throws {
        let server = try await TestServer()
        var environment = ProcessInfo.processInfo.environment
        environment["LOCALFORCE_URL"] = server.server.baseURL.absoluteString
        environment["LOCALFORCE_TOKEN"] = TestServer.token
        let (status, text) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.script.path], environment: environment)
        await server.stop()
        // simple-salesforce must be installed (scripts/test.sh installs it): a missing module fails here, loudly.
        #expect(status == 0, "\(text)")
        #expect(text.contains("simple-salesforce: all checks passed"))
    }
}
