import Foundation
import TestSupport
import Testing

/// simple-salesforce, unchanged, logs in to LocalForce with its JWT bearer and client
/// credentials flows (scripts/checks/simple_salesforce_oauth_check.py).
@Suite struct ThirdPartyOAuthTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/checks/simple_salesforce_oauth_check.py")

    @Test func simpleSalesforceJWTAndClientCredentials() async throws {
        let org = try await OAuthOrg()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-oauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = folder.appendingPathComponent("jwt.key")
        try Data(org.privateKeyPEM.utf8).write(to: keyFile)

        var environment = ProcessInfo.processInfo.environment
        environment["LOCALFORCE_URL"] = org.baseURL.absoluteString
        environment["JWT_CLIENT_ID"] = OAuthOrg.jwtApp
        environment["JWT_USERNAME"] = OAuthOrg.ada.0
        environment["JWT_KEY_FILE"] = keyFile.path
        environment["CC_CLIENT_ID"] = OAuthOrg.confidentialApp
        environment["CC_CLIENT_SECRET"] = OAuthOrg.confidentialSecret
        environment["CC_USERNAME"] = OAuthOrg.robot.0
        let (status, text) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.script.path], environment: environment, timeout: .seconds(120))
        await org.stop()
        // simple-salesforce must be installed (scripts/test.sh installs it): a missing module fails here, loudly.
        #expect(status == 0, "\(text)")
        #expect(text.contains("simple-salesforce oauth: all checks passed"))
        #expect(org.localForce.issuedTokenCount(grantType: "jwt-bearer") == 1)
        #expect(org.localForce.issuedTokenCount(grantType: "client_credentials") == 1)
    }
}
