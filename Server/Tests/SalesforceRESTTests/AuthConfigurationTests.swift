import CryptoExtras
import Foundation
import LocalForce
import Testing

/// The auth file of `msync serve --auth`: what it accepts, and a clear error for the rest.
@Suite struct AuthConfigurationTests {
    static func load(_ json: String, files: [String: String] = [:]) throws(AuthConfigurationError) -> AuthConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-auth-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try? Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        let file = folder.appendingPathComponent("auth.json")
        try? Data(json.utf8).write(to: file)
        return try AuthConfiguration.load(contentsOf: file)
    }

    @Test func readsAppsUsersAndKeyFilesRelativeToTheFile() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let certificate = try OAuthOrg.certificate(for: key)
        let configuration = try Self.load(
            """
            {"connectedApps": [{"name": "Server", "clientId": "server", "certificateFile": "app.crt"},
                               {"clientId": "public", "redirectUris": ["http://127.0.0.1:1717/OauthRedirect"]},
                               {"clientId": "inline", "publicKey": \(String(reflecting: key.publicKey.pemRepresentation))}],
             "users": [{"username": "Ada@Example.com", "password": "pw"}],
             "audiences": ["https://sso.example.com"]}
            """, files: ["app.crt": certificate])
        #expect(configuration.connectedApps.map(\.clientId) == ["server", "public", "inline"])
        #expect(configuration.connectedApps.first?.name == "Server")
        #expect(configuration.users.first?.lastName == "Ada@Example.com")
        #expect(configuration.audiences == ["https://sso.example.com"])
    }

    @Test(arguments: [
        ("{", "auth file is not valid"),
        (#"{"connectedApps": [{"clientId": "a"}, {"clientId": "a"}]}"#, "clientId a appears twice"),
        (#"{"connectedApps": [{"clientId": ""}]}"#, "1 to 255 characters"),
        (#"{"connectedApps": [{"clientId": "a", "clientSecret": ""}]}"#, "clientSecret must not be empty"),
        (#"{"connectedApps": [{"clientId": "a", "redirectUris": ["not a url"]}]}"#, "is not an absolute URL"),
        (#"{"connectedApps": [{"clientId": "a", "runAs": "x@example.com"}]}"#, "who is not among the users"),
        (#"{"connectedApps": [{"clientId": "a", "certificateFile": "missing.crt"}]}"#, "cannot read"),
        (
            #"{"connectedApps": [{"clientId": "a", "publicKey": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"}]}"#,
            "not a PEM RSA key"
        ),
        (
            #"{"connectedApps": [{"clientId": "a", "certificate": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"}]}"#,
            "not valid PEM"
        ),
        (#"{"connectedApps": [{"clientId": "a", "publicKey": "x", "certificate": "y"}]}"#, "give one of"),
        (#"{"users": [{"username": "a", "password": ""}]}"#, "empty password"),
        (#"{"users": [{"username": "a", "password": "x"}, {"username": "A", "password": "y"}]}"#, "appears twice"),
    ])
    func refusesBadFilesWithTheReason(json: String, reason: String) {
        do {
            _ = try Self.load(json)
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: AuthConfigurationError.self) {
            try AuthConfiguration.load(contentsOf: URL(fileURLWithPath: "/nonexistent/auth.json"))
        }
    }
}
