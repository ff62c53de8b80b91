public import Foundation
public import LocalForce
import LocalForceHTTP
public import SalesforceREST

/// An org for a test: LocalForce on in-memory SQLite and a `RestClient` signed in to it, in
/// process or over HTTP on `127.0.0.1` (a free port).
///
/// <!-- snippet: Server/Tests/DocumentationTests/SymbolReference.swift#testOrg -->
/// ```swift
/// let org = try await TestOrg.start()
/// defer { Task { await org.stop() } }
/// let id = try await org.client.create("Account", fields: ["Name": "Acme"])
/// ```
///
/// ``withLocalForce(schema:transport:faults:clockOffset:briefcaseRules:streaming:_:)`` does the same for the length of
/// a closure.
public final class TestOrg: Sendable {
    /// How the client reaches the org.
    public enum Transport: Sendable {
        /// Requests are handed to the org directly (``InProcessTransport``): fastest, no port.
        case inProcess
        /// Requests go over HTTP/1.1 to a `LocalForceServer` on `127.0.0.1` and a free port,
        /// through `URLSession`: what an app on a device does.
        case http
        /// As ``http``, over HTTPS: the org serves a certificate of a certificate authority
        /// made for it alone, which its client trusts (through SwiftNIO: `URLSession` on Linux
        /// trusts the system's authorities only). Other clients trust
        /// ``TestOrg/certificateAuthorityFile``.
        case https
    }

    /// The token the client sends (and the org accepts).
    public static let token = "localforce-test-token"

    /// The org.
    public let localForce: LocalForce
    /// A client signed in to it (retries quickly: 10 ms initial backoff).
    public let client: RestClient
    private let server: LocalForceServer?

    /// Where the org listens (`http://127.0.0.1:<port>`, or `https://` with the
    /// ``Transport/https`` transport); nil in process. Point other clients at it (a
    /// command-line tool, a third-party library).
    public var baseURL: URL? { server?.baseURL }

    /// With the ``Transport/https`` transport, the PEM file of the authority that signed the
    /// org's certificate: what other clients trust (`REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`,
    /// `SSL_CERT_FILE`). Removed by ``stop()``.
    public let certificateAuthorityFile: URL?

    private init(localForce: LocalForce, client: RestClient, server: LocalForceServer?, certificateAuthorityFile: URL? = nil) {
        self.localForce = localForce
        self.client = client
        self.server = server
        self.certificateAuthorityFile = certificateAuthorityFile
    }

    /// Starts an org with `schema` (the standard objects by default) on a fresh in-memory
    /// database.
    ///
    /// - Parameters:
    ///   - schema: the org's objects and fields.
    ///   - transport: in process (the default), over HTTP or over HTTPS.
    ///   - faults: fault injection to configure the org with (errors, dropped connections,
    ///     latency, late commits).
    ///   - clockOffset: how far the org's clock is from the machine's.
    ///   - briefcaseRules: the org's briefcases, for briefcase sync downs.
    ///   - streaming: the Streaming API's options (retention, long polls; whether it is served).
    public static func start(
        schema: Schema = .standard, transport: Transport = .inProcess, faults: FaultInjection = FaultInjection(),
        clockOffset: Duration = .zero, briefcaseRules: [BriefcaseRule] = [], streaming: StreamingOptions = StreamingOptions()
    ) async throws -> TestOrg {
        let localForce = try await LocalForce(
            schema: schema, database: try SQLiteDatabase(path: ":memory:"), token: token, briefcaseRules: briefcaseRules, faults: faults,
            clockOffset: clockOffset, streaming: streaming)
        let retry = RetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(10))
        switch transport {
        case .inProcess:
            // `.invalid` never resolves: nothing this client sends can leave the process.
            let url = URL(string: "http://localforce.invalid") ?? URL(fileURLWithPath: "/")
            let client = RestClient(
                instanceURL: url, tokenProvider: StaticAccessToken(token), retryPolicy: retry, transport: InProcessTransport(localForce))
            return TestOrg(localForce: localForce, client: client, server: nil)
        case .http:
            let server = try await LocalForceServer.start(localForce)
            let client = RestClient(instanceURL: server.baseURL, tokenProvider: StaticAccessToken(token), retryPolicy: retry)
            return TestOrg(localForce: localForce, client: client, server: server)
        case .https:
            let tls = try LocalForceServer.TLS.selfSigned()
            let authority = tls.authorityPEM ?? ""
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("testorg-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(LocalForceServer.TLS.authorityFileName)
            do {
                try Data(authority.utf8).write(to: file)
                let server = try await LocalForceServer.start(localForce, tls: tls)
                let client = RestClient(
                    instanceURL: server.baseURL, tokenProvider: StaticAccessToken(token), retryPolicy: retry,
                    transport: try TrustingTransport(authorityPEM: authority))
                return TestOrg(localForce: localForce, client: client, server: server, certificateAuthorityFile: file)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
        }
    }

    /// Stops the HTTP server, if any, and closes the org's database.
    public func stop() async {
        if let certificateAuthorityFile { try? FileManager.default.removeItem(at: certificateAuthorityFile.deletingLastPathComponent()) }
        if let server {
            await server.stop()
        } else {
            await localForce.database.close()
        }
    }
}

/// Runs `body` with a fresh org and a client signed in to it, then stops the org (also when
/// `body` throws). The parameters are those of
/// ``TestOrg/start(schema:transport:faults:clockOffset:briefcaseRules:streaming:)``.
///
/// <!-- snippet: Server/Tests/DocumentationTests/SymbolReference.swift#withLocalForce -->
/// ```swift
/// @Test func syncsDown() async throws {
///     try await withLocalForce { org, client in
///         _ = try await client.create("Account", fields: ["Name": "Acme"])
///         #expect(try await client.query("SELECT Name FROM Account").totalSize == 1)
///     }
/// }
/// ```
public func withLocalForce<Result: Sendable>(
    schema: Schema = .standard, transport: TestOrg.Transport = .inProcess, faults: FaultInjection = FaultInjection(),
    clockOffset: Duration = .zero, briefcaseRules: [BriefcaseRule] = [], streaming: StreamingOptions = StreamingOptions(),
    _ body: (LocalForce, RestClient) async throws -> Result
) async throws -> Result {
    let org = try await TestOrg.start(
        schema: schema, transport: transport, faults: faults, clockOffset: clockOffset, briefcaseRules: briefcaseRules,
        streaming: streaming)
    do {
        let result = try await body(org.localForce, org.client)
        await org.stop()
        return result
    } catch {
        await org.stop()
        throw error
    }
}
