import CryptoExtras
import FastJSON
import Foundation
import LocalForce
import LocalForceHTTP
import SalesforceREST
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `msync login` / `logout` and the saved login used by `msync sync` and `msync query --org`,
/// against LocalForce's OAuth endpoints; the web-server flow is driven in a real headless
/// Chromium (Debian's package, installed by scripts/test.sh).
@Suite struct LoginCommandTests {
    static let browserScript = Msync.serverPackage.appendingPathComponent("scripts/checks/oauth_browser_check.py")
    static let hostCheckScript = Msync.serverPackage.appendingPathComponent("scripts/checks/host_header_check.py")

    /// A LocalForce with the `msync` app (loopback redirect) and Ada, plus a config folder.
    struct World {
        let server: LocalForceServer
        let folder: URL
        var environment: [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
            return environment
        }
        var credentialsFile: URL { folder.appendingPathComponent("config/msync/credentials/default.json") }

        init(secret: String? = nil, jwtCertificatePEM: String? = nil) async throws {
            let auth = try AuthConfiguration(
                connectedApps: [
                    .init(
                        clientId: "msync", clientSecret: secret, redirectURIs: ["http://127.0.0.1:1717/OauthRedirect"],
                        runAs: secret == nil ? nil : "ada@example.com", jwtCertificatePEM: jwtCertificatePEM)
                ],
                users: [.init(username: "ada@example.com", password: "correct horse", firstName: "Ada", lastName: "Lovelace")])
            let localForce = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "static", auth: auth)
            server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-login-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> (Int32, String) {
            try await ChildProcess.run(
                try Msync.binary(), arguments, environment: environment.merging(extra) { _, new in new }, timeout: .seconds(120))
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func browserLoginThenSyncQueryRenewalAndLogout() async throws {
        let world = try await World()
        let url = world.server.baseURL.absoluteString
        let process = try RunningChild(
            try Msync.binary(), ["login", "--instance-url", url, "--no-browser", "--callback-port", "0", "--timeout", "120"],
            environment: world.environment, output: .both)
        let output = try #require(process.output)
        let prompt = await ChildProcess.read(output) { $0.contains("code_challenge_method=S256") }
        let authorizeURL = try #require(prompt.split(separator: "\n").first { $0.hasPrefix("http") }.map(String.init))
        #expect(authorizeURL.hasPrefix(url + "/services/oauth2/authorize?"))
        // Another page sending the browser to the listener cannot end or disturb the login.
        let redirectURI = try #require(URLComponents(string: authorizeURL)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
        let forged = try #require(URL(string: redirectURI + "?state=forged&error=%3Cscript%3Ealert(1)%3C%2Fscript%3E"))
        let (forgedBody, forgedResponse) = try await URLSession.shared.data(from: forged)
        #expect((forgedResponse as? HTTPURLResponse)?.statusCode == 400)
        #expect(!String(decoding: forgedBody, as: UTF8.self).contains("<script>"))
        // Nor can a site whose name was rebound to 127.0.0.1: only the loopback name and address
        // with the listener's port are answered (400 here: not the login's redirect).
        let (hostStatus, hostText) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.hostCheckScript.path, redirectURI, "400"], timeout: .seconds(60))
        #expect(hostStatus == 0 && hostText.contains("hosts: only 127.0.0.1:"), "\(hostText)")

        // The real browser: log in (a wrong password first), allow, follow the redirect.
        let shots = world.folder.path
        let (browserStatus, browserText) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Self.browserScript.path, authorizeURL, "ada@example.com", "correct horse", shots],
            timeout: .seconds(120))
        #expect(browserStatus == 0, "\(browserText)")
        #expect(browserText.contains("browser: logged in and consented"))
        let rest = await ChildProcess.read(output) { _ in false }
        await process.exited()
        #expect(process.terminationStatus == 0, "\(prompt)\(rest)")
        #expect(rest.contains("Logged in as ada@example.com"))
        #expect(FileManager.default.fileExists(atPath: world.credentialsFile.path))
        #expect(FileManager.default.fileExists(atPath: shots + "/oauth-consent.png"))

        // The saved login works for query --org and sync, without --token.
        _ = await world.server.localForce.handle(
            APIRequest(
                method: "POST", path: "/services/data/v66.0/sobjects/Account", query: nil,
                headers: ["Authorization": "Bearer static", "Content-Type": "application/json"], body: Array(#"{"Name":"Acme"}"#.utf8)))
        let (queryStatus, queryText) = try await world.run(["query", "--org", "SELECT Name, Owner.Username FROM Account"])
        #expect(queryStatus == 0, "\(queryText)")
        #expect(queryText.contains("\"Acme\""))
        try Data(#"{"soups":[{"soupName":"accounts","indexes":[{"path":"Id","type":"string"}]}]}"#.utf8)
            .write(to: world.folder.appendingPathComponent("userstore.json"))
        try Data(
            #"{"syncs":[{"syncName":"accounts","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name FROM Account"},"options":{"mergeMode":"OVERWRITE"}}]}"#
                .utf8
        ).write(to: world.folder.appendingPathComponent("usersyncs.json"))

        // An expired session is renewed with the refresh token, once, and saved again.
        let before = try Data(contentsOf: world.credentialsFile)
        world.server.localForce.expireAccessTokens()
        let (syncStatus, syncText) = try await world.run([
            "sync", "--store", world.folder.appendingPathComponent("store.sqlite").path, "--store-config",
            world.folder.appendingPathComponent("userstore.json").path, "--syncs",
            world.folder.appendingPathComponent("usersyncs.json").path,
            "--json",
        ])
        #expect(syncStatus == 0, "\(syncText)")
        #expect(syncText.contains("\"DONE\""))
        #expect(world.server.localForce.issuedTokenCount(grantType: "refresh_token") == 1)
        #expect(try Data(contentsOf: world.credentialsFile) != before)

        // Logout revokes at the server and deletes the file; the session is over.
        let saved = try JSONValue(parsing: Array(try Data(contentsOf: world.credentialsFile)))
        let refreshToken = try #require(saved["refreshToken"]?.stringValue)
        let (logoutStatus, logoutText) = try await world.run(["logout"])
        #expect(logoutStatus == 0, "\(logoutText)")
        #expect(!FileManager.default.fileExists(atPath: world.credentialsFile.path))
        let refresh = await world.server.localForce.handle(
            APIRequest(
                method: "POST", path: "/services/oauth2/token", query: nil,
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array("grant_type=refresh_token&client_id=msync&refresh_token=\(refreshToken)".utf8)))
        #expect(refresh.status == 400)
        let (afterStatus, afterText) = try await world.run(["query", "--org", "SELECT Id FROM Account"])
        #expect(afterStatus != 0)
        #expect(afterText.contains("no saved login"))
        #expect(!afterText.contains("Usage:"))
        await world.stop()
    }

    @Test func clientCredentialsAndJWTLoginsWithoutABrowser() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let world = try await World(secret: "app-secret", jwtCertificatePEM: key.publicKey.pemRepresentation)
        let url = world.server.baseURL.absoluteString
        let (status, text) = try await world.run(
            ["login", "--instance-url", url, "--client-credentials", "--client-secret-env", "APP_SECRET"],
            extra: ["APP_SECRET": "app-secret"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("Logged in as ada@example.com"))

        let keyFile = world.folder.appendingPathComponent("server.key")
        try Data(key.pemRepresentation.utf8).write(to: keyFile)
        let (jwtStatus, jwtText) = try await world.run([
            "login", "--instance-url", url, "--jwt-key", keyFile.path, "--username", "ada@example.com", "--account", "server",
        ])
        #expect(jwtStatus == 0, "\(jwtText)")
        let (queryStatus, queryText) = try await world.run(["query", "--org", "--account", "server", "SELECT Id FROM User"])
        #expect(queryStatus == 0, "\(queryText)")

        // A session that cannot be renewed ends the command with a clear error, not a loop.
        world.server.localForce.expireAccessTokens()
        let (expiredStatus, expiredText) = try await world.run(["query", "--org", "--account", "server", "SELECT Id FROM User"])
        #expect(expiredStatus != 0)
        #expect(expiredText.contains("the saved login \"server\" was refused and could not be renewed"), "\(expiredText)")
        #expect(expiredText.hasSuffix("log in again with msync login\n") && !expiredText.contains("Usage:"), "\(expiredText)")

        let (wrongStatus, wrongText) = try await world.run(
            ["login", "--instance-url", url, "--client-credentials", "--client-secret-env", "APP_SECRET"], extra: ["APP_SECRET": "wrong"])
        #expect(wrongStatus != 0)
        #expect(wrongText.contains("invalid_client"))
        await world.stop()
    }

    /// `msync serve --auth FILE --token-lifetime N`: the file's apps and users log in, and
    /// their tokens end after N seconds; a bad file stops the server with the reason.
    @Test func serveWithAnAuthFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-serve-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        try Data(key.publicKey.pemRepresentation.utf8).write(to: folder.appendingPathComponent("jwt.pem"))
        let auth = folder.appendingPathComponent("auth.json")
        try Data(
            #"""
            {"connectedApps": [{"clientId": "cli", "clientSecret": "s", "redirectUris": ["http://127.0.0.1:1717/OauthRedirect"],
                                "publicKeyFile": "jwt.pem", "runAs": "robot@example.com"}],
             "users": [{"username": "robot@example.com", "password": "pw", "lastName": "Robot"}]}
            """#.utf8
        ).write(to: auth)
        // The apps and users work (a long lifetime: a loaded machine may take seconds per step).
        let (serving, banner) = try await Self.serve(["--auth", auth.path])
        defer {
            serving.terminate()
            serving.waitUntilExit()
        }
        // The file holds secrets and others can read it (written 0644): the server says so.
        #expect(banner.contains("others can read it (chmod 600 it)"))
        let baseURL = try Self.address(banner)
        let jwt = try await OAuthClient(loginURL: baseURL, clientId: "cli").jwtBearer(
            username: "robot@example.com", privateKeyPEM: key.pemRepresentation)
        #expect(try await OAuthClient(for: jwt).userIdentity(for: jwt).username == "robot@example.com")
        let credentials = try await OAuthClient(loginURL: baseURL, clientId: "cli", clientSecret: "s").clientCredentials()
        _ = try await RestClient(instanceURL: credentials.instanceURL, tokenProvider: StaticAccessToken(credentials.accessToken))
            .query("SELECT Id FROM Account")

        // --token-lifetime 1: a token is refused once a second has passed (under load it can only
        // be refused sooner, so this holds however slow the machine).
        let (short, shortBanner) = try await Self.serve(["--auth", auth.path, "--token-lifetime", "1"])
        defer {
            short.terminate()
            short.waitUntilExit()
        }
        let shortLived = try await OAuthClient(loginURL: try Self.address(shortBanner), clientId: "cli", clientSecret: "s")
            .clientCredentials()
        try await Task.sleep(for: .milliseconds(1500))
        do {
            _ = try await RestClient(instanceURL: shortLived.instanceURL, tokenProvider: StaticAccessToken(shortLived.accessToken))
                .query("SELECT Id FROM Account")
            Issue.record("a token outlived --token-lifetime")
        } catch RestError.sessionExpired {}

        try Data(#"{"connectedApps": [{"clientId": "a", "runAs": "nobody@example.com"}]}"#.utf8).write(to: auth)
        let (status, text) = try await ChildProcess.run(
            try Msync.binary(), ["serve", "--port", "0", "--auth", auth.path], timeout: .seconds(60))
        #expect(status != 0)
        #expect(text.contains("runs as nobody@example.com, who is not among the users"))
    }

    /// `msync serve --port 0 --token static` with `arguments`, running; its output up to the
    /// "listening on" line.
    static func serve(_ arguments: [String]) async throws -> (RunningChild, String) {
        let process = try RunningChild(try Msync.binary(), ["serve", "--port", "0", "--token", "static"] + arguments, output: .both)
        let banner = await ChildProcess.read(try #require(process.output)) { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains { $0.contains("listening on") }
        }
        return (process, banner)
    }

    /// The URL of a "LocalForce listening on URL" line.
    static func address(_ banner: String) throws -> URL {
        let line = try #require(banner.split(separator: "\n").first { $0.contains("listening on") })
        return try #require(line.split(separator: " ").last.flatMap { URL(string: $0.trimmingCharacters(in: .whitespacesAndNewlines)) })
    }
}
