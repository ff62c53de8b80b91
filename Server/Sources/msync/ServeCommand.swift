import ArgumentParser
import Foundation
import LocalForce
import LocalForceHTTP
import LocalForcePostgres

/// `msync serve`: runs LocalForce, a Salesforce-REST-compatible server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run LocalForce, a Salesforce-REST-compatible server, until interrupted.",
        discussion: """
            Point any Salesforce REST client at the printed URL with the token as its session id:
              msync serve --port 8080 --token secret --database org.sqlite
              curl -H 'Authorization: Bearer secret' 'http://127.0.0.1:8080/services/data/v66.0/query?q=SELECT+Id+FROM+Account'
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "Bearer token clients must send (one is generated and printed when omitted).")
    var token: String?

    @Option(
        help: """
            The org's data: a SQLite file, :memory:, or postgres://user:password@host:5432/database[?schema=name]. \
            A :memory: org lives in a private folder $TMPDIR/localforce-<uuid> while the server runs: removed when it \
            stops, or by the next LocalForce that starts if it was killed.
            """)
    var database = ":memory:"

    @Option(help: "JSON schema file adding custom objects and fields.")
    var schema: String?

    @Option(
        help: "Briefcase rules file for /connect/briefcase/priming-records: {\"rules\": [{\"object\": \"Account\", \"where\": \"...\"}]}.")
    var briefcase: String?

    @Option(
        help: ArgumentHelp(
            "Connected apps and users for the OAuth endpoints (/services/oauth2/authorize, token, revoke, userinfo), in JSON.",
            discussion:
                "The format is in the repository's Server/Sources/LocalForce/LocalForce.docc/OAuthEndpoints.md (LocalForce's OAuth endpoints article), and docs/msync.md shows it in use. The static token keeps working beside them.",
            valueName: "file"))
    var auth: String?

    @Option(help: ArgumentHelp("Seconds an OAuth access token lives; then it answers 401 INVALID_SESSION_ID.", valueName: "seconds"))
    var tokenLifetime: Int = 7200

    @Option(help: "Fault injection: share of requests (0 to 1) that fail. Off by default.")
    var faultRate: Double = 0

    @Option(help: "Fault injection: latency added to every request, in milliseconds.")
    var faultLatencyMs: Int = 0

    @Option(
        help:
            "Fault injection: kinds to inject, comma-separated: 500, 503, limit (403 REQUEST_LIMIT_EXCEEDED), drop-before, drop-after (connection dropped before / after processing), gateway-timeout-before, gateway-timeout-after (a gateway's 504 page before / after processing)."
    )
    var faultKinds: String = "500,503,limit,drop-before,drop-after,gateway-timeout-before,gateway-timeout-after"

    @Option(
        help: ArgumentHelp(
            "Seconds the server's clock is ahead of this machine's (negative: behind; write --clock-offset=-600).", valueName: "seconds"))
    var clockOffset: Int = 0

    @Option(
        help:
            "Late commits: share of writes (0 to 1) stamped when they arrive but visible, and answered, only --late-commit-delay-ms later, as long transactions on a real org. Off by default."
    )
    var lateCommitRate: Double = 0

    @Option(help: "Late commits: how late, in milliseconds.")
    var lateCommitDelayMs: Int = 2000

    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate (chain); needs --tls-key.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "Serve HTTPS with a certificate for localhost, 127.0.0.1 and ::1, signed by a fresh local authority; both are kept in this directory (made when missing) and reused while valid.",
            discussion:
                "The authority's ca.pem is what clients trust: REQUESTS_CA_BUNDLE (Python), NODE_EXTRA_CA_CERTS (Node), SSL_CERT_FILE (OpenSSL), curl --cacert; msync takes --ca-file.",
            valueName: "directory"))
    var tlsSelfSigned: String?

    @Option(help: ArgumentHelp("Streaming API: hours an event stays available for replay.", valueName: "hours"))
    var eventRetentionHours: Int = 72

    @Option(help: ArgumentHelp("Streaming API: events kept for replay at most, all channels together.", valueName: "count"))
    var eventRetentionCount: Int = 100_000

    func validate() throws {
        let limit = 10 * 366 * 86_400
        guard (-limit...limit).contains(clockOffset) else {
            throw ValidationError("--clock-offset must be within ten years (\(limit) seconds) either way")
        }
        guard (0...1).contains(lateCommitRate) else { throw ValidationError("--late-commit-rate must be between 0 and 1") }
        guard (0...3_600_000).contains(lateCommitDelayMs) else {
            throw ValidationError("--late-commit-delay-ms must be between 0 and 3600000")
        }
        guard (1...31_622_400).contains(tokenLifetime) else {
            throw ValidationError("--token-lifetime must be between 1 and 31622400 seconds (a year)")
        }
        guard (1...8_784).contains(eventRetentionHours) else { throw ValidationError("--event-retention-hours takes 1 to 8784 (a year)") }
        guard (1...100_000_000).contains(eventRetentionCount) else {
            throw ValidationError("--event-retention-count takes 1 to 100000000")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1") }
        try InputFile.check(schema, option: "--schema")
        try InputFile.check(briefcase, option: "--briefcase")
        try InputFile.check(auth, option: "--auth")
        switch (tlsCert, tlsKey, tlsSelfSigned) {
        case (nil, nil, _), (.some, .some, nil): break
        case (.some, .some, .some):
            throw ValidationError("--tls-self-signed makes its own certificate: give it or --tls-cert and --tls-key")
        default: throw ValidationError("--tls-cert and --tls-key go together")
        }
        try InputFile.check(tlsCert, option: "--tls-cert")
        try InputFile.check(tlsKey, option: "--tls-key")
        guard faultLatencyMs >= 0 else { throw ValidationError("--fault-latency-ms must not be negative") }
        for kind in faultKindList where FaultInjection.Kind(rawValue: kind) == nil {
            throw ValidationError(
                "unknown fault kind '\(kind)'; use \(FaultInjection.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// Warns on standard error when others than the owner may read the file at `path`.
    static func warnIfOthersCanRead(_ path: String, holding what: String) {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, mode & 0o077 != 0 else {
            return
        }
        FileHandle.standardError.write(Data("warning: \(path) holds \(what) but others can read it (chmod 600 it)\n".utf8))
    }

    func run() async throws {
        let schemaDefinition = try schema.map { try SchemaFile.load(contentsOf: URL(fileURLWithPath: $0)) } ?? .standard
        let generated = token == nil
        let bearer = token ?? Self.generateToken()
        let rules = try briefcase.map { try BriefcaseRule.load(contentsOf: URL(fileURLWithPath: $0)) } ?? []
        let faults = FaultInjection(
            rate: faultRate, kinds: faultKindList.compactMap(FaultInjection.Kind.init(rawValue:)),
            latency: .milliseconds(faultLatencyMs))
        let authConfiguration = try auth.map { try AuthConfiguration.load(contentsOf: URL(fileURLWithPath: $0)) } ?? .none
        if let auth { Self.warnIfOthersCanRead(auth, holding: "passwords and secrets") }
        let store = try await DatabaseLocation.open(database)
        await faults.configureLateCommits(rate: lateCommitRate, delay: .milliseconds(lateCommitDelayMs))
        let localForce = try await LocalForce(
            schema: schemaDefinition, database: store, token: bearer, briefcaseRules: rules, faults: faults,
            clockOffset: .seconds(clockOffset), auth: authConfiguration, accessTokenLifetime: .seconds(tokenLifetime),
            streaming: StreamingOptions(retentionAge: .seconds(eventRetentionHours * 3600), retentionCount: eventRetentionCount))
        let tls = try loadTLS()
        if let tls, !tls.created, let directory = tlsSelfSigned {
            Self.warnIfOthersCanRead(
                URL(fileURLWithPath: directory).appendingPathComponent(LocalForceServer.TLS.keyFileName).path,
                holding: "the server's private key")
        }
        let server: LocalForceServer
        do {
            server = try await LocalForceServer.start(localForce, host: host, port: port, tls: tls?.tls)
        } catch let error as APIError where error.errorCode == "SERVER_START_FAILED" {
            // A command line, not an HTTP answer: the reason without "500 SERVER_START_FAILED".
            throw CommandFailure(error.message + (error.message.hasSuffix("is in use") ? "; give another --port (0 picks a free one)" : ""))
        }
        // Ctrl-C or SIGTERM stops the server cleanly: requests in flight finish and an in-memory
        // org's private files are removed. Trapped before the address is printed, so that no
        // signal sent after it finds the default action.
        let interruption = await Interruption(printer: ProgressPrinter()) { await server.stop() }
        var banner = "LocalForce listening on \(server.baseURL.absoluteString)\n"
        if generated { banner += "token: \(bearer)\n" }
        if let tls, let directory = tlsSelfSigned {
            banner += Self.trustInstructions(created: tls.created, directory: directory, url: server.baseURL.absoluteString)
        }
        FileHandle.standardOutput.write(Data(banner.utf8))
        try await server.wait()
        interruption.cancel()
        // A file org stopped is one file: what its write-ahead log held goes into it.
        try? await (store as? SQLiteDatabase)?.checkpoint()
        if let code = interruption.exitCode { throw ExitCode(code) }
    }

    /// The certificate to serve HTTPS with, from the files given or the self-signed directory.
    private func loadTLS() throws -> (tls: LocalForceServer.TLS, created: Bool)? {
        do {
            if let tlsCert, let tlsKey {
                let tls = try LocalForceServer.TLS(
                    certificateFile: URL(fileURLWithPath: tlsCert), keyFile: URL(fileURLWithPath: tlsKey))
                return (tls, false)
            }
            if let tlsSelfSigned { return try LocalForceServer.TLS.selfSigned(in: URL(fileURLWithPath: tlsSelfSigned)) }
            return nil
        } catch let error as LocalForceServer.TLSError {
            throw ValidationError(error.description)
        }
    }

    private var faultKindList: [String] {
        faultKinds.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// How clients come to trust the self-signed authority, printed under the address.
    static func trustInstructions(created: Bool, directory: String, url: String) -> String {
        let authority = URL(fileURLWithPath: directory).appendingPathComponent(LocalForceServer.TLS.authorityFileName).path
        return """
            \(created ? "made a new local certificate authority" : "reusing the local certificate authority"): \(authority)
            trust it in the clients' environment:
              export REQUESTS_CA_BUNDLE=\(authority)   # Python requests (simple-salesforce)
              export NODE_EXTRA_CA_CERTS=\(authority)  # Node (jsforce, the Salesforce CLI)
              export SSL_CERT_FILE=\(authority)        # OpenSSL-based clients
              curl --cacert \(authority) \(url)/services/data
              msync query --org --instance-url \(url) --token TOKEN --ca-file \(authority) "SELECT COUNT() FROM Account"

            """
    }

    static func generateToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return "00D" + String((0..<40).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}
