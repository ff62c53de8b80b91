import Foundation
import Testing
@testable import LocalForce

/// A real third-party Salesforce client, unchanged, against LocalForce over HTTP.
@Suite struct ThirdPartyClientTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/checks/simple_salesforce_check.py")

    @Test func simpleSalesforce() async throws {
        let server = try await TestServer()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path]
        var environment = ProcessInfo.processInfo.environment
        environment["LOCALFORCE_URL"] = server.server.baseURL.absoluteString
        environment["LOCALFORCE_TOKEN"] = TestServer.token
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = try await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        process.waitUntilExit()
        await server.stop()
        let text = String(decoding: data, as: UTF8.self)
        // simple-salesforce must be installed (scripts/test.sh installs it): a missing module fails here, loudly.
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("simple-salesforce: all checks passed"))
    }
}
