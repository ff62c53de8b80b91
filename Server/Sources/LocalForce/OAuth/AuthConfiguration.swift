import CryptoExtras
import Foundation
import X509

/// The connected apps and users an org's OAuth endpoints know (`msync serve --auth FILE`).
///
/// ```json
/// { "connectedApps": [
///     { "name": "msync", "clientId": "msync-cli", "clientSecret": "s3cret",
///       "redirectUris": ["http://127.0.0.1:1717/OauthRedirect"],
///       "certificateFile": "jwt.crt", "runAs": "integration@example.com" } ],
///   "users": [ { "username": "ada@example.com", "password": "…", "firstName": "Ada", "lastName": "Lovelace" },
///              { "username": "integration@example.com", "password": "…", "lastName": "Integration" } ],
///   "audiences": ["https://login.salesforce.com"] }
/// ```
///
/// An app's `certificate`/`certificateFile` (PEM X.509) or `publicKey`/`publicKeyFile` (PEM
/// RSA public key) verifies its JWT bearer assertions; `runAs` names the user its client
/// credentials act as. File paths are relative to the configuration file.
public struct AuthConfiguration: Sendable {
    /// A connected app: an OAuth client of the org.
    public struct ConnectedApp: Sendable, CustomReflectable {
        /// A label for pages and logs.
        public var name: String
        /// The consumer key.
        public var clientId: String
        /// The consumer secret, if the app has one (confidential clients, client credentials).
        public var clientSecret: String?
        /// The callback URLs an authorization may redirect to. A loopback URL (`127.0.0.1`,
        /// `localhost`, `[::1]`) matches on any port, as RFC 8252 §7.3 asks of native-app servers.
        public var redirectURIs: [String]
        /// The username client credentials run as, if the app allows that flow.
        public var runAs: String?
        /// Verifies JWT bearer assertions, if the app allows that flow.
        let jwtKey: _RSA.Signing.PublicKey?

        /// A connected app.
        ///
        /// - Parameters:
        ///   - name: a label for pages and logs (the client id when `nil`).
        ///   - clientId: the consumer key.
        ///   - clientSecret: the consumer secret, if the app has one.
        ///   - redirectURIs: the callback URLs the web-server flow may redirect to.
        ///   - runAs: the username client credentials act as (`nil`: no client credentials flow).
        ///   - jwtCertificatePEM: a PEM X.509 certificate, or a PEM RSA public key, whose key
        ///     verifies the app's JWT assertions (`nil`: no JWT bearer flow).
        /// - Throws: ``AuthConfigurationError`` when the key is not an RSA key of 2048 bits or more.
        public init(
            name: String? = nil, clientId: String, clientSecret: String? = nil, redirectURIs: [String] = [], runAs: String? = nil,
            jwtCertificatePEM: String? = nil
        ) throws(AuthConfigurationError) {
            self.name = name ?? clientId
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.redirectURIs = redirectURIs
            self.runAs = runAs
            self.jwtKey = try jwtCertificatePEM.map { pem throws(AuthConfigurationError) in try Self.rsaKey(pem, app: clientId) }
        }

        /// What `dump` and debuggers show: the secret hidden.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "name": name, "clientId": clientId, "clientSecret": clientSecret == nil ? "nil" : "<hidden>",
                    "redirectURIs": redirectURIs, "runAs": runAs as Any, "jwt": jwtKey == nil ? "no" : "RSA key",
                ])
        }

        private static func rsaKey(_ pem: String, app: String) throws(AuthConfigurationError) -> _RSA.Signing.PublicKey {
            if pem.contains("BEGIN CERTIFICATE") {
                do {
                    let certificate = try Certificate(pemEncoded: pem)
                    if let key = _RSA.Signing.PublicKey(certificate.publicKey) { return key }
                } catch {
                    throw AuthConfigurationError("connected app \(app): the certificate is not valid PEM: \(error)")
                }
                throw AuthConfigurationError("connected app \(app): the certificate's key is not an RSA key")
            }
            do {
                return try _RSA.Signing.PublicKey(pemRepresentation: pem)
            } catch {
                throw AuthConfigurationError("connected app \(app): the public key is not a PEM RSA key of 2048 bits or more")
            }
        }
    }

    /// A user who can log in.
    public struct User: Sendable, CustomReflectable {
        /// The login name (an email address in Salesforce).
        public var username: String
        /// The password the login page and the password grant check.
        public var password: String
        /// Given name.
        public var firstName: String?
        /// Family name (`username` when omitted: the `User` object requires one).
        public var lastName: String
        /// Email (`username` when omitted and it is an address).
        public var email: String?

        /// What `dump` and debuggers show: the password hidden.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "username": username, "password": "<hidden>", "firstName": firstName as Any, "lastName": lastName,
                    "email": email as Any,
                ])
        }

        /// A user; see the properties.
        public init(username: String, password: String, firstName: String? = nil, lastName: String? = nil, email: String? = nil) {
            self.username = username
            self.password = password
            self.firstName = firstName
            self.lastName = lastName ?? username
            self.email = email ?? (username.contains("@") ? username : nil)
        }
    }

    /// The connected apps.
    public var connectedApps: [ConnectedApp]
    /// The users.
    public var users: [User]
    /// JWT audiences accepted besides the server's own URL, `https://login.salesforce.com`
    /// and `https://test.salesforce.com`.
    public var audiences: [String]

    /// A configuration.
    ///
    /// - Throws: ``AuthConfigurationError`` when client ids or usernames repeat, are empty, or
    ///   an app runs as a user who is not listed.
    public init(connectedApps: [ConnectedApp] = [], users: [User] = [], audiences: [String] = []) throws(AuthConfigurationError) {
        self.connectedApps = connectedApps
        self.users = users
        self.audiences = audiences
        try validate()
    }

    /// No apps and no users: only the static token authenticates.
    public static let none = AuthConfiguration(unchecked: ())

    private init(unchecked: Void) {
        connectedApps = []
        users = []
        audiences = []
    }

    private func validate() throws(AuthConfigurationError) {
        var clientIds = Set<String>()
        for app in connectedApps {
            guard !app.clientId.isEmpty, app.clientId.count <= 255 else {
                throw AuthConfigurationError("a connected app's clientId must have 1 to 255 characters")
            }
            guard clientIds.insert(app.clientId).inserted else { throw AuthConfigurationError("clientId \(app.clientId) appears twice") }
            if let secret = app.clientSecret, secret.isEmpty {
                throw AuthConfigurationError("connected app \(app.clientId): clientSecret must not be empty (leave it out instead)")
            }
            for uri in app.redirectURIs {
                guard let url = URL(string: uri), let scheme = url.scheme, !scheme.isEmpty, url.host != nil || scheme != "http" else {
                    throw AuthConfigurationError("connected app \(app.clientId): redirect URI \(uri) is not an absolute URL")
                }
            }
            if let runAs = app.runAs, !users.contains(where: { $0.username.lowercased() == runAs.lowercased() }) {
                throw AuthConfigurationError("connected app \(app.clientId) runs as \(runAs), who is not among the users")
            }
        }
        var usernames = Set<String>()
        for user in users {
            guard !user.username.isEmpty, user.username.count <= 80 else {
                throw AuthConfigurationError("a username must have 1 to 80 characters")
            }
            guard !user.password.isEmpty else { throw AuthConfigurationError("user \(user.username) has an empty password") }
            guard usernames.insert(user.username.lowercased()).inserted else {
                throw AuthConfigurationError("username \(user.username) appears twice")
            }
        }
    }

    /// The app with this client id.
    func app(clientId: String) -> ConnectedApp? {
        connectedApps.first { $0.clientId == clientId }
    }

    /// The user with this username (usernames compare case-insensitively, as Salesforce's).
    func user(named username: String) -> User? {
        let wanted = username.lowercased()
        return users.first { $0.username.lowercased() == wanted }
    }
}

/// Why an auth configuration (or its file) was refused.
public struct AuthConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}
