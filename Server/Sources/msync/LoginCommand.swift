import ArgumentParser
import Foundation
import SalesforceREST

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `msync login`: logs in to an org (or LocalForce) and saves the credentials.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in to an org (or LocalForce) and save the credentials for msync sync and msync query.",
        discussion: """
            By default this runs the web-server flow with PKCE: it prints the login page's URL (and opens it in a \
            browser when it can), waits for the redirect on 127.0.0.1, then saves the credentials.

            For unattended use, --jwt-key with --username runs the JWT bearer flow, and --client-credentials runs \
            the client credentials flow with the secret from --client-secret-env. Those logins have no refresh token: \
            run msync login again when the session ends.

            Credentials go to the Keychain on Apple platforms, and elsewhere to a file only you can read in \
            $XDG_CONFIG_HOME/msync/credentials (~/.config/msync/credentials).

            Examples:
              msync login --instance-url https://login.salesforce.com --client-id 3MVG9...
              msync login --instance-url http://127.0.0.1:8080 --client-id msync \\
                --no-browser
              msync login --instance-url https://login.salesforce.com \\
                --client-id 3MVG9... --jwt-key server.key --username me@example.com
            """
    )

    static let defaultAccount = "default"

    @Option(help: "Login server: https://login.salesforce.com, https://test.salesforce.com, a My Domain, or a LocalForce URL.")
    var instanceUrl: String

    @Option(help: "The connected app's consumer key.")
    var clientId = "msync"

    @Option(help: ArgumentHelp("The environment variable holding the consumer secret, if the app has one.", valueName: "name"))
    var clientSecretEnv: String?

    @Option(help: ArgumentHelp("Save the login under this name.", valueName: "name"))
    var account = defaultAccount

    @Option(
        help: ArgumentHelp(
            "Port of the redirect listener on 127.0.0.1.",
            discussion: """
                Register http://127.0.0.1:PORT/OauthRedirect as the app's callback URL. Salesforce matches it exactly, so keep \
                the port you registered; 0 (any free port) suits LocalForce, which matches loopback callbacks on any port.
                """,
            valueName: "port"))
    var callbackPort = 1717

    @Option(help: ArgumentHelp("JWT bearer flow: the assertion's audience (default: what the login server expects).", valueName: "url"))
    var audience: String?

    @Option(help: "Scopes to ask for.")
    var scope = "api refresh_token"

    @Option(help: ArgumentHelp("Seconds to wait for the browser's redirect.", valueName: "seconds"))
    var timeout = 300

    @Flag(help: "Do not try to open a browser; only print the login URL.")
    var noBrowser = false

    @Option(help: ArgumentHelp("JWT bearer flow: the app's RSA private key (PEM file).", valueName: "file"))
    var jwtKey: String?

    @Option(help: "JWT bearer flow: the user to log in as.")
    var username: String?

    @Flag(help: "Client credentials flow: the app acts as its run-as user (needs --client-secret-env).")
    var clientCredentials = false

    @OptionGroup
    var certificates: CertificateAuthorities

    func validate() throws {
        guard let url = URL(string: instanceUrl), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--instance-url must be an http(s) URL")
        }
        guard (0...65535).contains(callbackPort) else { throw ValidationError("--callback-port must be between 0 and 65535") }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 3600 seconds") }
        if (jwtKey == nil) != (username == nil) { throw ValidationError("--jwt-key and --username go together") }
        try InputFile.check(jwtKey, option: "--jwt-key")
        if clientCredentials && jwtKey != nil { throw ValidationError("choose one of --jwt-key and --client-credentials") }
        if clientCredentials && clientSecretEnv == nil { throw ValidationError("--client-credentials needs --client-secret-env") }
        if let clientSecretEnv, ProcessInfo.processInfo.environment[clientSecretEnv]?.isEmpty ?? true {
            throw ValidationError("--client-secret-env names \(clientSecretEnv), which is not set")
        }
        try CredentialStoreError.check(account: account)
    }

    func run() async throws {
        guard let loginURL = URL(string: instanceUrl) else { throw ValidationError("--instance-url must be an http(s) URL") }
        let secret = clientSecretEnv.flatMap { ProcessInfo.processInfo.environment[$0] }
        let transport = try certificates.transport()
        let credentials: OAuthCredentials
        if let jwtKey, let username {
            let pem: String
            do {
                pem = try String(contentsOfFile: jwtKey, encoding: .utf8)
            } catch {
                throw CommandFailure("cannot read --jwt-key \(jwtKey): \(error.localizedDescription)")
            }
            credentials = try await OAuthClient(loginURL: loginURL, clientId: clientId, transport: transport).jwtBearer(
                username: username, privateKeyPEM: pem, audience: audience)
        } else if clientCredentials {
            credentials = try await OAuthClient(loginURL: loginURL, clientId: clientId, clientSecret: secret, transport: transport)
                .clientCredentials()
        } else {
            credentials = try await webServerFlow(loginURL: loginURL, secret: secret, transport: transport)
        }
        let identity = try await OAuthClient(for: credentials, transport: transport).userIdentity(for: credentials)
        let store = platformCredentialStore()
        try store.save(credentials, account: account)
        print("Logged in as \(identity.username) (\(identity.userId)) on \(credentials.instanceURL.absoluteString).")
        print("Saved as \"\(account)\": msync sync and msync query --org use it when no --token is given.")
        if let clientSecretEnv, credentials.refreshToken != nil {
            print(
                "The app has a secret: give --client-secret-env \(clientSecretEnv) to msync sync and query so that they can renew the login."
            )
        }
    }

    private func webServerFlow(loginURL: URL, secret: String?, transport: any HTTPTransport) async throws -> OAuthCredentials {
        let callback = try await LoopbackCallback.listen(port: callbackPort)
        let oauth = OAuthClient(
            loginURL: loginURL, clientId: clientId, clientSecret: secret, redirectURI: callback.redirectURI, transport: transport)
        let login = try oauth.authorizationRequest(scopes: scope.split(separator: " ").map(String.init))
        callback.expect(state: login.state)
        do {
            try await Self.checkLoginPage(login.url, redirectURI: callback.redirectURI, transport: transport)
        } catch {
            await callback.stop()
            throw error
        }
        // Written at once, not buffered: whoever reads a pipe (a script, a test) gets the URL now.
        let prompt = "Log in at this URL (the redirect comes back to \(callback.redirectURI)):\n\(login.url.absoluteString)\n"
        FileHandle.standardOutput.write(Data(prompt.utf8))
        if !noBrowser { Self.openBrowser(login.url) }
        let query: [String: String]
        do {
            query = try await callback.wait(timeout: .seconds(timeout))
        } catch {
            await callback.stop()
            throw error
        }
        await callback.stop()
        return try await oauth.exchange(code: try login.code(fromCallbackQuery: query), for: login)
    }

    /// Fetches the login page once before waiting for the browser, so that a login server that
    /// refuses the request (an unknown app, a callback URL the app does not list, a LocalForce
    /// started without `--auth`) or cannot be reached ends the login at once, with its reason,
    /// rather than after `--timeout` seconds. A refusal is Salesforce's OAuth error page (400,
    /// its `error=` and `error_description=` lines, as Salesforce and LocalForce print them);
    /// any other answer is left to the browser.
    static func checkLoginPage(_ url: URL, redirectURI: String, transport: any HTTPTransport) async throws {
        let host = url.host ?? url.absoluteString
        let status: Int
        let body: [UInt8]
        do {
            (status, _, body) = try await transport.send(URLRequest(url: url, timeoutInterval: 30))
        } catch {
            throw CommandFailure("cannot reach the login server \(host): \(error.localizedDescription)")
        }
        // Only the OAuth error page counts: a single sign-on page on the way may answer 401 or 403
        // to a request without a browser's session and still let the browser log in.
        guard status == 400 else { return }
        let page = String(decoding: body.prefix(65_536), as: UTF8.self)
        let reason = ["error", "error_description"].compactMap { name in Self.pageValue(name, in: page) }.joined(separator: ": ")
        guard !reason.isEmpty else { return }
        throw CommandFailure(
            "the login server \(host) refused the login request (\(status), \(reason)): check --client-id and that "
                + "the app lists \(redirectURI) as a callback URL (LocalForce serves OAuth only when started with --auth FILE)")
    }

    /// The value after `name=` on an error page, up to the next tag or line end.
    private static func pageValue(_ name: String, in page: String) -> String? {
        guard let range = page.range(of: name + "=") else { return nil }
        let value = page[range.upperBound...].prefix { $0 != "<" && $0 != "\n" && $0 != "&" }.prefix(200)
        return value.isEmpty ? nil : String(value)
    }

    /// Opens the URL with the desktop's opener, when there is one; failing is fine (the URL
    /// is printed).
    private static func openBrowser(_ url: URL) {
        #if os(macOS)
            let opener = "/usr/bin/open"
        #else
            let opener = "/usr/bin/xdg-open"
        #endif
        guard FileManager.default.isExecutableFile(atPath: opener) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}

/// `msync logout`: revokes the saved login and deletes it.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke the saved login at its server and delete it.",
        discussion: "The local copy is deleted even when the server cannot be reached; msync then says so and exits with 1."
    )

    @Option(help: ArgumentHelp("The saved login to end.", valueName: "name"))
    var account = LoginCommand.defaultAccount

    @OptionGroup
    var certificates: CertificateAuthorities

    func run() async throws {
        let store = platformCredentialStore()
        guard let credentials = try store.load(account: account) else {
            print("No saved login \"\(account)\".")
            return
        }
        var revokeError: (any Error)?
        do {
            try await OAuthClient(for: credentials, transport: try certificates.transport()).revoke(
                credentials.refreshToken ?? credentials.accessToken)
        } catch RestError.oauth(let error, _) where error == "unsupported_token_type" {
            // Already revoked or expired at the server: nothing left to end there.
        } catch {
            revokeError = error
        }
        try store.delete(account: account)
        if let revokeError {
            FileHandle.standardError.write(Data("the login was deleted here, but the server did not revoke it: \(revokeError)\n".utf8))
            throw ExitCode(1)
        }
        print("Logged out of \(credentials.instanceURL.absoluteString); the saved login \"\(account)\" is deleted.")
    }
}
