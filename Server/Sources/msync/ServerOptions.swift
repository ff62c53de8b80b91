import ArgumentParser
import Foundation
import SalesforceREST

/// How a command reaches the org: `--instance-url` with `--token`, or the login `msync login`
/// saved (renewed with its refresh token when it expires, and saved again).
struct ServerOptions: ParsableArguments {
    @Option(help: "Server base URL (Salesforce instance or LocalForce); the saved login's when omitted.")
    var instanceUrl: String?

    @Option(help: "Bearer token (session id); without it, the login saved by msync login is used.")
    var token: String?

    @Option(help: ArgumentHelp("The saved login to use.", valueName: "name"))
    var account = LoginCommand.defaultAccount

    @Option(help: "REST API version.")
    var apiVersion = "66.0"

    @Option(
        help: ArgumentHelp(
            "The environment variable holding the connected app's consumer secret, for apps that require it to renew a login.",
            valueName: "name"))
    var clientSecretEnv: String?

    @OptionGroup
    var certificates: CertificateAuthorities

    func validate() throws {
        if let instanceUrl {
            guard let url = URL(string: instanceUrl), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--instance-url must be an http(s) URL")
            }
        }
        if token != nil && instanceUrl == nil { throw ValidationError("--token needs --instance-url") }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
        try CredentialStoreError.check(account: account)
        if let clientSecretEnv, ProcessInfo.processInfo.environment[clientSecretEnv]?.isEmpty ?? true {
            throw ValidationError("--client-secret-env names \(clientSecretEnv), which is not set")
        }
    }

    /// Asks the org once for its resources (a request that needs the token, and renews a saved
    /// login that expired), so that a refused token or login ends the command at once with one
    /// line, before anything runs: a sync up with nothing to send would otherwise report DONE
    /// without ever asking the server. Other failures are left to the command, which reports them.
    func checkToken(_ client: RestClient) async throws {
        do {
            try await Self.probe(client)
        } catch RestError.sessionExpired(let detail) {
            throw refusal(detail)
        } catch {
            return
        }
    }

    /// What an expired session means here, in one line that says what to do: with a static
    /// `--token`, the org refused that token (a static token is not renewed); with a saved login,
    /// the org refused it and it could not be renewed (`detail` says why, e.g. `invalid_grant`
    /// after the org forgot its refresh token).
    func refusal(_ detail: String) -> CommandFailure {
        if token != nil, let instanceUrl {
            return CommandFailure(
                "\(instanceUrl) refused the token given with --token (INVALID_SESSION_ID): give a current session id, or log in with msync login"
            )
        }
        return CommandFailure(
            "the saved login \"\(account)\" was refused and could not be renewed (\(detail)): log in again with msync login")
    }

    /// Asks the org for its resources (a request that needs the token), once and for at most
    /// 30 seconds: a check before the real work, not worth a command's retries (a refused
    /// connection answers at once; only an org that drops packets takes the whole time, and a
    /// busy one answers within it). Throws what it met.
    static func probe(_ client: RestClient) async throws {
        var request = RestRequest(method: .get, path: "/services/data/v\(client.apiVersion)", isIdempotent: false)
        request.timeout = .seconds(30)
        _ = try await client.send(request)
    }

    /// A client: the static token's, or the saved login's (which fails with a message saying to
    /// log in when there is none).
    func client() async throws -> RestClient {
        let transport = try certificates.transport()
        if let token, let instanceUrl, let url = URL(string: instanceUrl) {
            return RestClient(instanceURL: url, apiVersion: apiVersion, tokenProvider: StaticAccessToken(token), transport: transport)
        }
        let store = platformCredentialStore()
        guard let credentials = try store.load(account: account) else {
            throw CommandFailure("no saved login \"\(account)\": run msync login, or give --instance-url and --token")
        }
        if let instanceUrl, URL(string: instanceUrl) != credentials.instanceURL {
            throw CommandFailure("the saved login \"\(account)\" is for \(credentials.instanceURL.absoluteString), not \(instanceUrl)")
        }
        let account = self.account
        let secret = clientSecretEnv.flatMap { ProcessInfo.processInfo.environment[$0] }
        let oauth = OAuthClient(for: credentials, clientSecret: secret, transport: transport)
        let session = OAuthSession(credentials: credentials, client: oauth) { renewed in
            do {
                try store.save(renewed, account: account)
            } catch {
                FileHandle.standardError.write(Data("warning: the renewed login could not be saved: \(error)\n".utf8))
            }
        }
        return await RestClient(session: session, apiVersion: apiVersion, transport: transport)
    }
}
