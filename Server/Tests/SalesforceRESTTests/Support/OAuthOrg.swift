import Crypto
import CryptoExtras
import FastJSON
import Foundation
import LocalForce
import LocalForceHTTP
import SalesforceREST
import X509

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A LocalForce on 127.0.0.1:0 with three connected apps and two users, and a browser-like
/// HTTP client that does not follow redirects (the tests read the `Location` themselves).
final class OAuthOrg: Sendable {
    static let staticToken = "static-token"
    static let webApp = "web-app"
    static let webRedirect = "http://127.0.0.1:1717/OauthRedirect"
    static let confidentialApp = "confidential-app"
    static let confidentialSecret = "s3cr3t-value"
    static let jwtApp = "jwt-app"
    static let ada = ("ada@example.com", "correct horse")
    static let robot = ("robot@example.com", "robot password")

    let server: LocalForceServer
    /// The JWT app's private key (its certificate is in the org's configuration).
    let privateKeyPEM: String
    let certificatePEM: String

    var baseURL: URL { server.baseURL }
    var localForce: LocalForce { server.localForce }

    init(tokenLifetime: Duration = .seconds(7200)) async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        privateKeyPEM = key.pemRepresentation
        certificatePEM = try Self.certificate(for: key)
        let auth = try AuthConfiguration(
            connectedApps: [
                .init(name: "Web App", clientId: Self.webApp, redirectURIs: [Self.webRedirect]),
                .init(
                    name: "Confidential App", clientId: Self.confidentialApp, clientSecret: Self.confidentialSecret,
                    redirectURIs: ["https://app.example.com/callback"], runAs: Self.robot.0),
                .init(name: "JWT App", clientId: Self.jwtApp, jwtCertificatePEM: certificatePEM),
            ],
            users: [
                .init(username: Self.ada.0, password: Self.ada.1, firstName: "Ada", lastName: "Lovelace"),
                .init(username: Self.robot.0, password: Self.robot.1, lastName: "Robot"),
            ])
        let localForce = try await LocalForce(
            database: try SQLiteDatabase(path: ":memory:"), token: Self.staticToken, auth: auth, accessTokenLifetime: tokenLifetime)
        server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
    }

    func stop() async { await server.stop() }

    /// An OAuth client of the org as `clientId`.
    func client(_ clientId: String = webApp, secret: String? = nil, redirectURI: String? = webRedirect) -> OAuthClient {
        OAuthClient(loginURL: baseURL, clientId: clientId, clientSecret: secret, redirectURI: redirectURI)
    }

    /// A self-signed certificate of `key` (PEM), as a connected app's JWT certificate.
    static func certificate(for key: _RSA.Signing.PrivateKey) throws -> String {
        let name = try DistinguishedName { CommonName("msync tests") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: name, subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(),
            issuerPrivateKey: Certificate.PrivateKey(key))
        return try certificate.serializeAsPEM().pemString
    }

    struct Page: Sendable {
        var status: Int
        var headers: [String: String]
        var text: String

        /// The value of a hidden or text input named `name`.
        func input(_ name: String) -> String? {
            guard let range = text.range(of: "name=\"\(name)\" value=\"") else { return nil }
            let rest = text[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }

        /// The query of the `Location` header, decoded.
        var redirectQuery: [String: String] {
            guard let location = headers["location"], let items = URLComponents(string: location)?.queryItems else { return [:] }
            return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// A GET, or a POST of a form, without following redirects.
    func page(_ pathAndQuery: String, form: [(String, String)]? = nil, headers: [String: String] = [:]) async throws -> Page {
        guard let url = URL(string: baseURL.absoluteString + pathAndQuery) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&").utf8)
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http?.allHeaderFields ?? [:] { fields[String(describing: key).lowercased()] = String(describing: value) }
        return Page(status: http?.statusCode ?? 0, headers: fields, text: String(decoding: data, as: UTF8.self))
    }

    /// A web-server flow login of Ada through `oauth`: the request, the code the redirect carried
    /// and the tokens it was exchanged for.
    func webLogin(_ oauth: OAuthClient) async throws -> (login: AuthorizationRequest, code: String, credentials: OAuthCredentials) {
        let login = try oauth.authorizationRequest()
        let code = try login.code(fromCallbackQuery: try await WebServerFlowTests.logIn(self, login).redirectQuery)
        return (login, code, try await oauth.exchange(code: code, for: login))
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// Hands redirects back to the caller instead of following them.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
