import Foundation
import LocalForceHTTP
import TestSupport
import Testing

@testable import LocalForce

/// HTTPS: the self-signed authority LocalForce makes and keeps, certificates of one's own, and
/// a real client (Python's requests, as simple-salesforce uses it) trusting the authority.
@Suite struct TLSTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("localforce-tls-\(UUID().uuidString)")
    }

    @Test func theSelfSignedSetIsKeptAndReusedWhileValid() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, created) = try LocalForceServer.TLS.selfSigned(in: directory)
        #expect(created)
        let keyFile = directory.appendingPathComponent(LocalForceServer.TLS.keyFileName)
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let (again, createdAgain) = try LocalForceServer.TLS.selfSigned(in: directory)
        #expect(!createdAgain && again.certificateChainPEM == first.certificateChainPEM && again.authorityPEM == first.authorityPEM)
        // A year on, the kept certificate is about to expire: a fresh set replaces it.
        let (renewed, createdLater) = try LocalForceServer.TLS.selfSigned(in: directory, now: Date().addingTimeInterval(365 * 86_400))
        #expect(createdLater && renewed.authorityPEM != first.authorityPEM)

        // Half a set is not guessed at.
        try FileManager.default.removeItem(at: keyFile)
        #expect(throws: LocalForceServer.TLSError.self) { _ = try LocalForceServer.TLS.selfSigned(in: directory) }
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefused() throws {
        let one = try LocalForceServer.TLS.selfSigned()
        let other = try LocalForceServer.TLS.selfSigned()
        let mismatch = #expect(throws: LocalForceServer.TLSError.self) {
            _ = try LocalForceServer.TLS(certificateChainPEM: one.certificateChainPEM, privateKeyPEM: other.privateKeyPEM)
        }
        #expect(mismatch?.description.contains("does not belong") == true)
        #expect(throws: LocalForceServer.TLSError.self) {
            _ = try LocalForceServer.TLS(certificateChainPEM: "not a certificate", privateKeyPEM: one.privateKeyPEM)
        }
        #expect(throws: LocalForceServer.TLSError.self) {
            _ = try LocalForceServer.TLS(
                certificateFile: URL(fileURLWithPath: "/nonexistent/cert.pem"), keyFile: URL(fileURLWithPath: "/nonexistent/key.pem"))
        }
    }

    /// Python's requests trusts the authority through `REQUESTS_CA_BUNDLE` and reaches the org at
    /// its `https://` address; without it, verification fails. The URLs LocalForce hands out
    /// (identity) say `https`.
    @Test func aRealClientConnectsOverHTTPSTrustingTheAuthority() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (tls, _) = try LocalForceServer.TLS.selfSigned(in: directory)
        let localForce = try await LocalForce(database: try await TestServer.database(), token: TestServer.token)
        let server = try await LocalForceServer.start(localForce, tls: tls)
        #expect(server.baseURL.scheme == "https")
        let script = """
            import os, sys, requests
            url, token = os.environ["LOCALFORCE_URL"], os.environ["LOCALFORCE_TOKEN"]
            reply = requests.get(url + "/services/data/v59.0", headers={"Authorization": "Bearer " + token})
            print("status", reply.status_code, "identity", reply.json()["identity"])
            os.environ.pop("REQUESTS_CA_BUNDLE")
            try:
                requests.get(url + "/services/data")
                print("UNVERIFIED CONNECTION ACCEPTED")
            except requests.exceptions.SSLError:
                print("refused without the authority")
            """
        var environment = ProcessInfo.processInfo.environment
        environment["LOCALFORCE_URL"] = server.baseURL.absoluteString
        environment["LOCALFORCE_TOKEN"] = TestServer.token
        environment["REQUESTS_CA_BUNDLE"] = directory.appendingPathComponent(LocalForceServer.TLS.authorityFileName).path
        let (status, output) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script], environment: environment, timeout: .seconds(120))
        await server.stop()
        #expect(status == 0, "\(output)")
        #expect(output.contains("status 200 identity \(server.baseURL.absoluteString)/id/"), "\(output)")
        #expect(output.contains("refused without the authority"), "\(output)")
    }
}
