import ArgumentParser
import Foundation
import LocalForceTesting
import SalesforceREST

/// `--ca-file`: which certificate authorities msync trusts over HTTPS. The system's, unless
/// `--ca-file` or else `SSL_CERT_FILE` names a PEM file, whose authorities are then trusted
/// instead, as curl's `--cacert` and OpenSSL's `SSL_CERT_FILE` do. The same on every platform:
/// `URLSession` cannot be told another authority on Linux, so a named file sends requests
/// through a `TrustingTransport` (SwiftNIO), one connection a request.
struct CertificateAuthorities: ParsableArguments {
    /// The environment variable OpenSSL-based clients read, read here too.
    static let environmentVariable = "SSL_CERT_FILE"

    @Option(
        help: ArgumentHelp(
            "Trust the certificate authorities in this PEM file (and no others) over HTTPS; SSL_CERT_FILE when omitted.",
            valueName: "file"))
    var caFile: String?

    func validate() throws {
        try InputFile.check(caFile, option: "--ca-file")
    }

    /// The transport for a command's requests, trusting `--ca-file` (or `SSL_CERT_FILE`) when
    /// one is named. Throws a `CommandFailure` naming the file when it cannot be read or holds
    /// no certificate.
    func transport() throws -> any HTTPTransport {
        let fromEnvironment = ProcessInfo.processInfo.environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = caFile ?? fromEnvironment else { return URLSessionTransport() }
        let source = caFile != nil ? "--ca-file" : Self.environmentVariable
        do {
            try InputFile.check(path, option: source)
        } catch {
            throw CommandFailure("\(error)") // a file the environment named is no usage error
        }
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CommandFailure("\(source) \(path) cannot be read as text: \(error.localizedDescription)")
        }
        do {
            return try TrustingTransport(authorityPEM: pem)
        } catch {
            throw CommandFailure("\(source) \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----): \(error)")
        }
    }
}
