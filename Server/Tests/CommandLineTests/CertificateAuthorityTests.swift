import Foundation
import LocalForceHTTP
import TestSupport
import Testing

/// msync reaches an org served over HTTPS by an authority of its own, the one `--ca-file`
/// names, and trusts no other then; `SSL_CERT_FILE` changes nothing.
@Suite struct CertificateAuthorityTests {
    @Test func msyncTrustsTheAuthorityItIsGiven() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (serving, banner) = try await LoginCommandTests.serve(["--tls-self-signed", folder.path])
        defer {
            serving.terminate()
            serving.waitUntilExit()
        }
        let url = try LoginCommandTests.address(banner).absoluteString
        #expect(url.hasPrefix("https://"), "\(banner)")
        let authority = folder.appendingPathComponent(LocalForceServer.TLS.authorityFileName).path
        let query = ["query", "--org", "--instance-url", url, "--token", "static", "--format", "json", "SELECT COUNT() FROM Account"]
        var environment = ProcessInfo.processInfo.environment
        environment["SSL_CERT_FILE"] = nil
        // The system's authorities do not know this one.
        let (refused, refusal) = try await Msync.run(query, environment: environment)
        #expect(refused == 1 && refusal.lowercased().contains("certificate"), "\(refusal)")
        let (status, output) = try await Msync.run(query + ["--ca-file", authority], environment: environment)
        #expect(status == 0 && output == "{\"count\":0}\n", "\(output)")
        // A shell that exports SSL_CERT_FILE for the local org does not change msync.
        environment["SSL_CERT_FILE"] = authority
        let (fromEnvironment, text) = try await Msync.run(query, environment: environment)
        #expect(fromEnvironment == 1 && text.lowercased().contains("certificate"), "\(text)")
        // A sync (its REST requests and its sync down) goes the same way.
        let store = folder.appendingPathComponent("app.sqlite").path
        let (synced, syncText) = try await Msync.run(
            [
                "sync", "--instance-url", url, "--token", "static", "--store", store, "--ca-file", authority,
                "--store-config", ExampleConfigTests.examples.appendingPathComponent("userstore.json").path,
                "--syncs", ExampleConfigTests.examples.appendingPathComponent("usersyncs.json").path,
            ], environment: environment)
        #expect(synced == 0 && syncText.contains("accountsDown: DONE"), "\(syncText)")
    }

    @Test func aFileWithoutTheRightAuthorityIsRefused() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (serving, banner) = try await LoginCommandTests.serve(["--tls-self-signed", folder.appendingPathComponent("org").path])
        defer {
            serving.terminate()
            serving.waitUntilExit()
        }
        let url = try LoginCommandTests.address(banner).absoluteString
        let query = ["query", "--org", "--instance-url", url, "--token", "static", "SELECT COUNT() FROM Account"]
        // Another authority: the server's certificate is not one it signed.
        let other = folder.appendingPathComponent("other")
        _ = try LocalForceServer.TLS.selfSigned(in: other)
        let otherAuthority = other.appendingPathComponent(LocalForceServer.TLS.authorityFileName).path
        let (status, text) = try await Msync.run(query + ["--ca-file", otherAuthority])
        #expect(status == 1 && text.lowercased().contains("certificate"), "\(text)")
        // A file that holds no certificate, or none at all, is named.
        let note = folder.appendingPathComponent("note.txt")
        try Data("not a certificate\n".utf8).write(to: note)
        let (noteStatus, noteText) = try await Msync.run(query + ["--ca-file", note.path])
        #expect(noteStatus == 1 && noteText.contains("--ca-file \(note.path) holds no PEM certificate"), "\(noteText)")
        let missing = folder.appendingPathComponent("missing.pem").path
        let (missingStatus, missingText) = try await Msync.run(query + ["--ca-file", missing])
        #expect(missingStatus == 64 && missingText.contains("--ca-file: no file at \(missing)"), "\(missingText)")
    }
}
