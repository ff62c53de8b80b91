import ArgumentParser
import Foundation
import LocalForceTesting
import SalesforceREST

/// `--ca-file`: which certificate authorities msync trusts over HTTPS. The system's, unless
/// `--ca-file` names a PEM file, whose authorities are then trusted instead, as curl's `--cacert`
/// does. The same on every platform: `URLSession` cannot be told another authority on Linux, so
/// the file sends requests through a `TrustingTransport` (SwiftNIO), one connection a request.
/// `SSL_CERT_FILE` is left alone: a shell that exports it for a local org (or a conda or
/// corporate setup that sets it for everything) must not change how msync reaches a real org.
struct CertificateAuthorities: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Trust the certificate authorities in this PEM file (and no others) over HTTPS.",
            valueName: "file"))
    var caFile: String?

    func validate() throws {
        try InputFile.check(caFile, option: "--ca-file")
    }

    /// The transport for a command's requests, trusting `--ca-file` when it is given. Throws a
    /// `CommandFailure` naming the file when it cannot be read or holds no certificate.
    func transport() throws -> any HTTPTransport {
        guard let path = caFile else { return URLSessionTransport() }
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CommandFailure("--ca-file \(path) cannot be read as text: \(error.localizedDescription)")
        }
        do {
            return try TrustingTransport(authorityPEM: pem)
        } catch {
            throw CommandFailure("--ca-file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----): \(error)")
        }
    }
}
