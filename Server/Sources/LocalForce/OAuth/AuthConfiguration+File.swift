public import Foundation

extension AuthConfiguration {
    private struct AppSpec: Decodable {
        var name: String?
        var clientId: String
        var clientSecret: String?
        var redirectUris: [String]?
        var runAs: String?
        var certificate: String?
        var certificateFile: String?
        var publicKey: String?
        var publicKeyFile: String?
    }

    private struct UserSpec: Decodable {
        var username: String
        var password: String
        var firstName: String?
        var lastName: String?
        var email: String?
    }

    private struct File: Decodable {
        var connectedApps: [AppSpec]?
        var users: [UserSpec]?
        var audiences: [String]?
    }

    /// Reads a configuration file (the format is in ``AuthConfiguration``).
    ///
    /// - Throws: ``AuthConfigurationError`` naming what is wrong: unreadable file, invalid JSON,
    ///   a missing key file, a key that is not RSA, repeated ids.
    public static func load(contentsOf url: URL) throws(AuthConfigurationError) -> AuthConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AuthConfigurationError("cannot read auth file \(url.path): \(error.localizedDescription)")
        }
        return try load(data, directory: url.deletingLastPathComponent())
    }

    /// Reads a configuration from JSON; key files are looked up relative to `directory`.
    public static func load(_ data: Data, directory: URL) throws(AuthConfigurationError) -> AuthConfiguration {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw AuthConfigurationError("auth file is not valid: \(error)")
        }
        var apps: [ConnectedApp] = []
        for spec in file.connectedApps ?? [] {
            let sources = [spec.certificate, spec.certificateFile, spec.publicKey, spec.publicKeyFile].compactMap { $0 }
            guard sources.count <= 1 else {
                throw AuthConfigurationError(
                    "connected app \(spec.clientId): give one of certificate, certificateFile, publicKey, publicKeyFile")
            }
            var pem = spec.certificate ?? spec.publicKey
            if let path = spec.certificateFile ?? spec.publicKeyFile {
                let keyURL = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
                do {
                    pem = try String(contentsOf: keyURL, encoding: .utf8)
                } catch {
                    throw AuthConfigurationError("connected app \(spec.clientId): cannot read \(keyURL.path)")
                }
            }
            apps.append(
                try ConnectedApp(
                    name: spec.name, clientId: spec.clientId, clientSecret: spec.clientSecret, redirectURIs: spec.redirectUris ?? [],
                    runAs: spec.runAs, jwtCertificatePEM: pem))
        }
        let users = (file.users ?? []).map {
            User(username: $0.username, password: $0.password, firstName: $0.firstName, lastName: $0.lastName, email: $0.email)
        }
        return try AuthConfiguration(connectedApps: apps, users: users, audiences: file.audiences ?? [])
    }
}
